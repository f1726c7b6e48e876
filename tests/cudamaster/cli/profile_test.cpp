// The real `cudamaster profile` binary, end to end, without a GPU: offline imports of the
// captured exports, and the whole --task path (build with nvcc, runner request, ncu command,
// import, classification) against a fake ncu (CM_NCU) and a fake mskb-runner (MSKB_RUNNER);
// also every no-counters case falling back to the speed-of-light model, and a crashing kernel.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include "support/child_process.hpp"
#include "support/profile_fixtures.hpp"

using nlohmann::json;
using cmprof_test::fixture;
using cmtest::read_file;
using cmtest::TempDir;
namespace fs = std::filesystem;

namespace {

struct CliRun : cmtest::Proc {
  json j;  // stdout parsed, when it is JSON
};

// The binary with PATH, HOME, MSKB_CACHE_DIR (a build-tree cache) and `env` alone.
CliRun run_cudamaster(const std::vector<std::string>& args, const std::map<std::string, std::string>& env) {
  std::map<std::string, std::string> e = {{"PATH", "/usr/bin:/bin"}, {"HOME", "/tmp"}, {"MSKB_CACHE_DIR", CM_TEST_CACHE}};
  for (const auto& [k, v] : env) e[k] = v;
  cmtest::Proc p = cmtest::run_isolated(CM_CUDAMASTER_BIN, args, e);
  json j = json::parse(p.out, nullptr, false);
  return {std::move(p), std::move(j)};
}

std::vector<std::string> lines(const std::string& path) {
  std::vector<std::string> v;
  std::ifstream f(path);
  for (std::string l; std::getline(f, l);) v.push_back(l);
  return v;
}

bool has_pair(const std::vector<std::string>& v, const std::string& a, const std::string& b) {
  for (std::size_t i = 0; i + 1 < v.size(); ++i)
    if (v[i] == a && v[i + 1] == b) return true;
  return false;
}

const std::string kFakeNcu = std::string(CM_FAKES) + "/ncu";
const std::string kFakeRunner = std::string(CM_FAKES) + "/mskb-runner";

// Environment for the --task path: fake ncu and runner, logs into `dir`.
std::map<std::string, std::string> fake_env(const TempDir& dir, const std::string& csv,
                                            std::map<std::string, std::string> extra = {}) {
  std::map<std::string, std::string> e = {{"CM_NCU", kFakeNcu},
                                          {"MSKB_RUNNER", kFakeRunner},
                                          {"FAKE_LOG_DIR", dir.file("")},
                                          {"FAKE_NCU_CSV", fixture(csv)}};
  for (const auto& [k, v] : extra) e[k] = v;
  return e;
}

}  // namespace

TEST(ProfileCli, ImportCsvJson) {
  const CliRun r = run_cudamaster({"profile", "--import", fixture("stream_copy.csv"), "--json"}, {});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  ASSERT_FALSE(r.j.is_discarded()) << r.out;
  EXPECT_EQ(r.j["class"], "memory-bandwidth");
  EXPECT_EQ(r.j["source"], "ncu");
  EXPECT_GT(r.j["confidence"].get<double>(), 0.75);
  EXPECT_TRUE(r.j["threshold"].is_number());
  EXPECT_TRUE(r.j["metrics"].contains("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"));
  EXPECT_EQ(r.j["all_metrics"].size(), 765u);
  EXPECT_EQ(r.j["kernels"].size(), 1u);
  EXPECT_EQ(r.j["import"], fixture("stream_copy.csv"));
  EXPECT_EQ(r.j["rendered"].get<std::string>().rfind("bottleneck: memory-bandwidth", 0), 0u);
}

TEST(ProfileCli, ImportTextAndModes) {
  const CliRun f = run_cudamaster({"profile", "--import", fixture("fma_loop.csv")}, {});
  ASSERT_EQ(f.code, 0) << f.err;
  EXPECT_EQ(f.out.rfind("bottleneck: compute", 0), 0u) << f.out;
  EXPECT_NE(f.out.find("FMA pipe = "), std::string::npos);
  const CliRun full = run_cudamaster({"profile", "--import", fixture("fma_loop.csv"), "--profile", "full"}, {});
  ASSERT_EQ(full.code, 0);
  EXPECT_NE(full.out.find("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active = "), std::string::npos);
  EXPECT_GT(full.out.size(), 10 * f.out.size());
  const CliRun none = run_cudamaster({"profile", "--import", fixture("fma_loop.csv"), "--profile", "none", "--json"}, {});
  ASSERT_EQ(none.code, 0);
  EXPECT_EQ(none.j["class"], "compute");
  EXPECT_TRUE(none.j["metrics"].empty());
  EXPECT_EQ(none.j["rendered"], "");
  const CliRun bad = run_cudamaster({"profile", "--import", fixture("fma_loop.csv"), "--profile", "most"}, {});
  EXPECT_EQ(bad.code, 2);
}

TEST(ProfileCli, ImportNcuRepThroughNcu) {
  TempDir dir;
  const CliRun r = run_cudamaster({"profile", "--import", fixture("pointer_chase.ncu-rep"), "--json"},
                               fake_env(dir, "pointer_chase.csv"));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.j["class"], "memory-latency");
  EXPECT_EQ(r.j["kernels"].size(), 2u);
  const auto args = lines(dir.file("ncu-import.args"));
  EXPECT_TRUE(has_pair(args, "--import", fixture("pointer_chase.ncu-rep")));
  EXPECT_TRUE(has_pair(args, "--page", "raw"));
  EXPECT_TRUE(has_pair(args, "--print-units", "base"));
  // Without ncu, a .ncu-rep cannot be read; the CSV still can.
  const CliRun missing = run_cudamaster({"profile", "--import", fixture("pointer_chase.ncu-rep")}, {{"CM_NCU", "/nonexistent/ncu"}});
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("ncu_missing"), std::string::npos) << missing.err;
}

TEST(ProfileCli, TokenReportOverEveryFixture) {
  std::vector<std::string> args = {"profile", "--token-report", "--json"};
  for (const auto& f : cmprof_test::fixture_facts()) {
    args.push_back("--import");
    args.push_back(fixture(std::string(f.name) + ".csv"));
  }
  const CliRun r = run_cudamaster(args, {});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.j["ok"], true);
  EXPECT_GE(r.j["min_reduction_approx"].get<double>(), 0.30);
  EXPECT_GE(r.j["min_reduction_pieces"].get<double>(), 0.30);
  ASSERT_EQ(r.j["files"].size(), cmprof_test::fixture_facts().size());
  for (std::size_t i = 0; i < r.j["files"].size(); ++i)
    EXPECT_EQ(r.j["files"][i]["class"], cmprof_test::fixture_facts()[i].cls);
  // An unreachable target fails the benchmark.
  const CliRun strict = run_cudamaster({"profile", "--token-report", "--min-reduction", "0.9999", "--import", fixture("fma_loop.csv")}, {});
  EXPECT_EQ(strict.code, 1);
  EXPECT_NE(strict.out.find("MISSED"), std::string::npos) << strict.out;
}

TEST(ProfileCli, UsageErrors) {
  EXPECT_EQ(run_cudamaster({"profile"}, {}).code, 2);
  EXPECT_EQ(run_cudamaster({"profile", "--task", "vector_add", "--import", fixture("fma_loop.csv")}, {}).code, 2);
  EXPECT_EQ(run_cudamaster({"profile", "--import", "/nonexistent.csv"}, {}).code, 2);
  const CliRun unknown = run_cudamaster({"profile", "--task", "no_such_task", "--json"}, {});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_EQ(unknown.j["ok"], false);
  const CliRun shape = run_cudamaster({"profile", "--task", "vector_add", "--shape", "Q=4"}, {});
  EXPECT_EQ(shape.code, 2);
  EXPECT_NE(shape.err.find("no dimension 'Q'"), std::string::npos) << shape.err;
}

// The whole GPU path with fakes: nvcc builds the task's baseline for real, the fake ncu checks
// nothing but records its arguments and runs the (fake) runner, then serves a captured export.
TEST(ProfileCli, TaskPathWithFakeNcu) {
  TempDir dir;
  const CliRun r = run_cudamaster({"profile", "--task", "vector_add", "--json"}, fake_env(dir, "vector_add_baseline.csv"));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.j["ok"], true);
  EXPECT_EQ(r.j["source"], "ncu");
  EXPECT_EQ(r.j["class"], "memory-latency");
  EXPECT_EQ(r.j["task"], "vector_add");
  EXPECT_EQ(r.j["precision"], "fp32");
  EXPECT_EQ(r.j["shape"]["N"], 262144);  // the largest paper shape
  EXPECT_NE(r.j["kernel"].get<std::string>().find("tasks/algebra/vector_add/baseline_fp32.cu"), std::string::npos);
  EXPECT_EQ(r.j["kernels"].size(), 1u);
  EXPECT_EQ(r.j["ncu"]["call_us"], 42.5);  // the runner's report pipe reached us through ncu
  EXPECT_FALSE(r.j["metrics"].empty());

  // The ncu command line.
  const auto args = lines(dir.file("ncu-profile.args"));
  EXPECT_TRUE(has_pair(args, "--clock-control", "none"));
  EXPECT_TRUE(has_pair(args, "--profile-from-start", "off"));
  for (const char* s : {"SpeedOfLight", "MemoryWorkloadAnalysis", "ComputeWorkloadAnalysis", "Occupancy", "LaunchStats",
                        "WarpStateStats", "SchedulerStats"})
    EXPECT_TRUE(has_pair(args, "--section", s)) << s;
  ASSERT_GE(args.size(), 3u);
  EXPECT_EQ(args[args.size() - 3], kFakeRunner);
  EXPECT_EQ(args.back(), "3");
  const auto o = std::find(args.begin(), args.end(), "-o");
  ASSERT_NE(o, args.end());
  EXPECT_EQ(fs::path(*(o + 1)).filename(), "profile");
  EXPECT_FALSE(fs::exists(fs::path(*(o + 1)).parent_path()));  // the per-run temp dir is gone

  // The runner's request: profile mode, one call at the shape, the built library.
  const json req = json::parse(read_file(dir.file("runner-profile.json")));
  EXPECT_EQ(req["mode"], "profile");
  EXPECT_EQ(req["task"], "vector_add");
  EXPECT_EQ(req["symbol"], "vector_add");
  EXPECT_EQ(req["checks"].size(), 1u);
  EXPECT_EQ(req["checks"][0]["shape"]["N"], 262144);
  EXPECT_TRUE(fs::exists(req["library"].get<std::string>()));
}

TEST(ProfileCli, TaskPathOptionsAndKeptReport) {
  TempDir dir;
  const std::string keep = dir.file("keep");
  const CliRun r = run_cudamaster({"profile", "--task", "vector_add", "--kernel", "vendor", "--shape", "N=4096", "--report-dir",
                                keep, "--profile", "full", "--json"},
                               fake_env(dir, "vector_add_vendor.csv"));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.j["shape"]["N"], 4096);
  EXPECT_NE(r.j["kernel"].get<std::string>().find("vector_add/vendor.cu"), std::string::npos);
  EXPECT_EQ(json::parse(read_file(dir.file("runner-profile.json")))["checks"][0]["shape"]["N"], 4096);
  EXPECT_TRUE(fs::exists(keep + "/profile.ncu-rep"));
  EXPECT_TRUE(fs::exists(keep + "/profile.csv"));
  EXPECT_TRUE(fs::exists(keep + "/ncu.log"));
  EXPECT_EQ(r.j["ncu"]["report"], keep + "/profile.ncu-rep");
  EXPECT_TRUE(r.j["kernels"][0].contains("all_metrics"));
}

TEST(ProfileCli, NoCountersFallsBackToTheSolModel) {
  TempDir dir;
  const CliRun r = run_cudamaster({"profile", "--task", "vector_add", "--json"},
                               fake_env(dir, "vector_add_baseline.csv", {{"FAKE_NCU_MODE", "perm"}}));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.j["source"], "sol_model");
  // 3 MiB at 4300 GB/s is 0.73 us; 100 us measured is 0.7 % of the ceiling: memory, far from it.
  EXPECT_EQ(r.j["class"], "memory-latency");
  EXPECT_NE(r.j["message"].get<std::string>().find("ERR_NVGPUCTRPERM"), std::string::npos) << r.j["message"];
  EXPECT_EQ(r.j["ncu_error"]["kind"], "no_permission");
  EXPECT_EQ(r.j["sol"]["time_us"], 100);
  EXPECT_EQ(r.j["sol"]["dram_bandwidth_gbs"], 4300);
  EXPECT_NEAR(r.j["sol"]["roofline_us"].get<double>(), 3.0 * 4 * 262144 / 4300e9 * 1e6, 1e-9);
  EXPECT_TRUE(r.j["kernels"].empty());
  EXPECT_NE(r.err.find("speed-of-light model"), std::string::npos) << r.err;
  // The harness timed it: evaluate mode, one check and one timing at the shape.
  const json req = json::parse(read_file(dir.file("runner-evaluate.json")));
  EXPECT_EQ(req["timings"].size(), 1u);
  EXPECT_EQ(req["timings"][0]["shape"]["N"], 262144);
  EXPECT_NE(r.j["rendered"].get<std::string>().find("no hardware counters: no_permission"), std::string::npos);

  // A fast enough run is bandwidth-bound by the same model.
  const CliRun fast = run_cudamaster({"profile", "--task", "vector_add", "--json"},
                                  fake_env(dir, "vector_add_baseline.csv", {{"FAKE_NCU_MODE", "perm"}, {"FAKE_TIME_US", "1.0"}}));
  ASSERT_EQ(fast.code, 0) << fast.err;
  EXPECT_EQ(fast.j["class"], "memory-bandwidth");
  // --no-fallback turns it into an error.
  const CliRun strict = run_cudamaster({"profile", "--task", "vector_add", "--no-fallback"},
                                    fake_env(dir, "vector_add_baseline.csv", {{"FAKE_NCU_MODE", "perm"}}));
  EXPECT_EQ(strict.code, 1);
  EXPECT_NE(strict.err.find("no_permission"), std::string::npos) << strict.err;
}

TEST(ProfileCli, OtherNoCounterCases) {
  TempDir dir;
  const CliRun missing = run_cudamaster({"profile", "--task", "vector_add", "--json"},
                                     fake_env(dir, "vector_add_baseline.csv", {{"CM_NCU", "/nonexistent/ncu"}}));
  ASSERT_EQ(missing.code, 0) << missing.err;
  EXPECT_EQ(missing.j["source"], "sol_model");
  EXPECT_EQ(missing.j["ncu_error"]["kind"], "ncu_missing");
  const CliRun none = run_cudamaster({"profile", "--task", "vector_add", "--json"},
                                  fake_env(dir, "vector_add_baseline.csv", {{"FAKE_NCU_MODE", "nokernels"}}));
  ASSERT_EQ(none.code, 0) << none.err;
  EXPECT_EQ(none.j["ncu_error"]["kind"], "no_kernels");
  const CliRun hang = run_cudamaster({"profile", "--task", "vector_add", "--timeout", "2", "--json"},
                                  fake_env(dir, "vector_add_baseline.csv", {{"FAKE_NCU_MODE", "hang"}}));
  ASSERT_EQ(hang.code, 0) << hang.err;
  EXPECT_EQ(hang.j["ncu_error"]["kind"], "timeout");
  EXPECT_EQ(hang.j["source"], "sol_model");
}

TEST(ProfileCli, CrashingKernelIsAnErrorNotAFallback) {
  TempDir dir;
  const CliRun r = run_cudamaster({"profile", "--task", "vector_add", "--json"},
                               fake_env(dir, "vector_add_baseline.csv", {{"FAKE_RUNNER_MODE", "crash"}}));
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_EQ(r.j["ok"], false);
  EXPECT_EQ(r.j["error"]["kind"], "kernel_crash");
  EXPECT_NE(r.j["error"]["message"].get<std::string>().find("cudaErrorIllegalAddress"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir.file("runner-evaluate.json")));  // no timing of a broken kernel
}

// No GPU on this machine: whichever step needs the GPU first (the ncu run, or without counters
// the timed call), the profile says there is no device, in words without source locations.
TEST(ProfileCli, NoGpuIsNoDeviceNotACrash) {
  TempDir dir;
  for (const std::string& ncu : {kFakeNcu, std::string("/nonexistent/ncu")}) {
    const CliRun r = run_cudamaster({"profile", "--task", "vector_add", "--json"},
                                    fake_env(dir, "vector_add_baseline.csv", {{"FAKE_RUNNER_MODE", "nodevice"}, {"CM_NCU", ncu}}));
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    ASSERT_FALSE(r.j.is_discarded()) << r.out;
    EXPECT_EQ(r.j["error"]["kind"], "no_device") << r.out;
    EXPECT_EQ(r.j["error"]["message"], "no CUDA device (cudaGetDeviceCount: no CUDA-capable device is detected)") << r.out;
    EXPECT_NE(r.err.find("cudamaster profile: no_device: no CUDA device (cudaGetDeviceCount: no CUDA-capable device is detected)\n"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("device.cu"), std::string::npos) << r.err;
  }
}

// --executor slurm: ncu runs in a job step with one GPU (the runner's report line crosses srun),
// its report lands in the shared work folder, the import runs here when this machine has ncu and
// in a job step when only the nodes have it; the fallback's timed run and device query are job
// steps too; a step that cannot be allocated is an error, not a fallback.
TEST(ProfileCli, TaskPathThroughSlurm) {
  TempDir dir;
  const std::string shared = dir.file("shared"), srun_log = dir.file("srun.log");
  const std::vector<std::string> args = {"profile", "--task", "vector_add", "--json", "--executor", "slurm", "--slurm-srun", CM_FAKE_SRUN,
                                         "--slurm-args", "--partition=gpu", "--slurm-workdir", shared};
  auto calls = [&] {
    std::vector<std::string> v = lines(srun_log);
    fs::remove(srun_log);
    return v;
  };
  auto has = [](const std::string& call, const std::string& what) { return call.find(what) != std::string::npos; };

  const CliRun r = run_cudamaster(args, fake_env(dir, "vector_add_baseline.csv", {{"FAKE_SRUN_LOG", srun_log}}));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.j["source"], "ncu");
  EXPECT_EQ(r.j["class"], "memory-latency");
  EXPECT_EQ(r.j["ncu"]["call_us"], 42.5);
  const auto steps = calls();
  ASSERT_EQ(steps.size(), 1u);  // the profile; the import ran here
  for (const char* want : {"\t--gres=gpu:1\t", "\t--job-name=cudamaster-profile\t", "\t--partition=gpu\t", "cvd=unset"})
    EXPECT_TRUE(has(steps[0], want)) << want << " in " << steps[0];
  EXPECT_TRUE(has(steps[0], "\t" + kFakeNcu + "\t--clock-control\tnone\t"));
  EXPECT_TRUE(has(steps[0], "\t" + kFakeRunner + "\t"));
  const auto prof_args = lines(dir.file("ncu-profile.args"));
  const auto o = std::find(prof_args.begin(), prof_args.end(), "-o");
  ASSERT_NE(o, prof_args.end());
  EXPECT_EQ((o + 1)->rfind(shared + "/", 0), 0u) << *(o + 1) << ": the report must be where the login node can read it";
  EXPECT_TRUE(fs::exists(dir.file("ncu-import.args")));

  // Only the compute nodes have ncu: the step finds it on its PATH, and the import is a step too.
  const bool ncu_here = fs::exists("/usr/local/cuda/bin/ncu") || fs::exists("/usr/bin/ncu") || fs::exists("/bin/ncu");
  if (!ncu_here) {
    fs::remove(dir.file("ncu-import.args"));
    auto env = fake_env(dir, "vector_add_baseline.csv", {{"FAKE_SRUN_LOG", srun_log}, {"FAKE_SRUN_PATH", CM_FAKES}});
    env.erase("CM_NCU");
    const CliRun node = run_cudamaster(args, env);
    ASSERT_EQ(node.code, 0) << node.out << node.err;
    EXPECT_EQ(node.j["source"], "ncu");
    const auto node_steps = calls();
    ASSERT_EQ(node_steps.size(), 2u);
    EXPECT_TRUE(has(node_steps[0], "\tncu\t--clock-control\t"));
    EXPECT_TRUE(has(node_steps[1], "\tncu\t--import\t" + shared + "/"));
    EXPECT_TRUE(fs::exists(dir.file("ncu-import.args")));
    // Nor on the nodes: no counters (the speed-of-light fallback), not a failed launch.
    env.erase("FAKE_SRUN_PATH");
    const CliRun none = run_cudamaster(args, env);
    ASSERT_EQ(none.code, 0) << none.out << none.err;
    EXPECT_EQ(none.j["source"], "sol_model");
    EXPECT_EQ(none.j["ncu_error"]["kind"], "ncu_missing") << none.out;
    (void)calls();
  }

  // No counters: the speed-of-light fallback's timed run and device query are job steps too.
  const CliRun sol = run_cudamaster(args, fake_env(dir, "vector_add_baseline.csv", {{"FAKE_SRUN_LOG", srun_log}, {"FAKE_NCU_MODE", "perm"}}));
  ASSERT_EQ(sol.code, 0) << sol.out << sol.err;
  EXPECT_EQ(sol.j["source"], "sol_model");
  const auto sol_steps = calls();
  ASSERT_GE(sol_steps.size(), 3u);  // ncu, the timed run, identify (+ device unless cached)
  for (const std::string& s : sol_steps) EXPECT_TRUE(has(s, "\t--gres=gpu:1\t")) << s;
  EXPECT_TRUE(has(sol_steps[1], "\t" + kFakeRunner + "\t" + shared + "/"));
  EXPECT_TRUE(fs::exists(dir.file("runner-evaluate.json")));

  // srun cannot allocate: an error with srun's words, not a counters fallback.
  const CliRun fail = run_cudamaster(args, fake_env(dir, "vector_add_baseline.csv", {{"FAKE_SRUN_FAIL", "--clock-control"}}));
  EXPECT_EQ(fail.code, 1) << fail.out << fail.err;
  EXPECT_EQ(fail.j["error"]["kind"], "launch_failed");
  EXPECT_NE(fail.j["error"]["message"].get<std::string>().find("srun: error: Unable to allocate resources"), std::string::npos) << fail.out;

  // Usage: Slurm options without the Slurm executor.
  const CliRun usage = run_cudamaster({"profile", "--task", "vector_add", "--slurm-args", "--partition=gpu"}, {});
  EXPECT_EQ(usage.code, 2);
  EXPECT_NE(usage.err.find("--slurm-args needs --executor slurm"), std::string::npos) << usage.err;
}
