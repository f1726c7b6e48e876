// `mskb run|check --executor slurm` and `cudamaster optimize --executor slurm` against a real
// one-node Slurm cluster started for this test (tests/support/slurm/slurm-cluster.sh: munged,
// slurmctld and slurmd on this host, four fake GPUs as a gpu GRES) with the fake mskb-runner and
// fake nvcc: the Slurm run's report equals a local run's, a job cancelled while it runs is
// retried (or reported failed), a driver stopped with SIGTERM cancels its jobs and the run goes on
// with --skip-done, and cudamaster's evaluations run as real job steps, also across a kill and
// --resume. Without the Slurm binaries the test fails, unless MSKB_NO_SLURM=1 (then it is skipped).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <thread>

#include "support/agent_doubles.hpp"
#include "support/child_process.hpp"

using namespace cmtest;

namespace {

// vector_add for the two-task story (the fake runner's markers decide its verdict and speed).
std::string vector_add_kernel(const std::string& markers) {
  return "// vector_add candidate\n" + markers +
         "#include <cuda_runtime.h>\n"
         "__global__ void k(const float* a, const float* b, float* c, int n) {\n"
         "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (i < n) c[i] = a[i] + b[i];\n"
         "}\n"
         "extern \"C\" void vector_add(const float* A, const float* B, float* C, int N) {\n"
         "  if (N > 0) k<<<(N + 255) / 256, 256>>>(A, B, C, N);\n"
         "  cudaDeviceSynchronize();\n"
         "}\n";
}

// A two-task story recorded through the real loop: spmv_csr's (script_story), then vector_add's
// (round 1 accepted, round 2 slower and rejected).
std::string record_two_task_story(const std::string& path) {
  InProcess rec;
  auto p = std::make_unique<ScriptedProvider>();
  script_story(*p);
  p->add(cudamaster::agents::Agent::planner, plan_answer("float4 loads", 1.6));
  p->add(cudamaster::agents::Agent::coder, code_answer(vector_add_kernel("// fake-eval: speed=1.6\n"), "float4 loads."));
  p->add(cudamaster::agents::Agent::planner, plan_answer("two per thread", 2.0));
  p->add(cudamaster::agents::Agent::coder, code_answer(vector_add_kernel("// fake-eval: speed=1.2\n"), "Two per thread."));
  auto req = rec.request();
  req.tasks = {"spmv_csr", "vector_add"};
  req.config.profile = cudamaster::profile::RenderMode::none;
  EXPECT_EQ(rec.run(req, std::move(p), nullptr, path).status, cudamaster::store::Status::finished);
  return path;
}

const std::string kClusterScript = std::string(CM_SOURCE_DIR) + "/tests/support/slurm/slurm-cluster.sh";

bool on_path(const std::string& name) {
  for (const char* dir : {"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin", "/sbin", "/bin"})
    if (::access((std::string(dir) + "/" + name).c_str(), X_OK) == 0) return true;
  return false;
}

// The output of a shell command (squeue, scancel).
std::string shell(const std::string& cmd) {
  std::string out;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    ::pclose(p);
  }
  return out;
}

// Whether the cluster's fake GPUs are device files (then a job's CUDA_VISIBLE_DEVICES is set).
bool g_bound_gpus = false;

// The cluster, once for every test of this binary.
class Cluster : public ::testing::Environment {
 public:
  void SetUp() override {
    for (const char* b : {"slurmctld", "slurmd", "munged", "srun", "squeue", "scancel"})
      if (!on_path(b)) {
        const char* no = std::getenv("MSKB_NO_SLURM");
        if (no != nullptr && std::string(no) == "1") {
          std::cout << "skipped: " << b << " not found and MSKB_NO_SLURM=1\n";
          std::cout.flush();
          std::_Exit(125);
        }
        FAIL() << b << " not found: install slurm-wlm and munge (scripts/install-deps.sh --tests), or set MSKB_NO_SLURM=1 to skip";
      }
    dir_ = std::make_unique<TempDir>();
    const std::string out = shell(kClusterScript + " start " + dir_->file("cluster") + " 2>&1");
    ASSERT_NE(out.find("SLURM_CONF="), std::string::npos) << out;
    ::setenv("SLURM_CONF", dir_->file("cluster/slurm.conf").c_str(), 1);
    g_bound_gpus = read_file(dir_->file("cluster/gres.conf")).find("File=") != std::string::npos;
    up_ = true;
  }
  void TearDown() override {
    if (up_) shell(kClusterScript + " stop " + dir_->file("cluster") + " 2>&1");
    dir_.reset();
  }

 private:
  std::unique_ptr<TempDir> dir_;
  bool up_ = false;
};

[[maybe_unused]] const auto* const kCluster = ::testing::AddGlobalTestEnvironment(new Cluster);

// "JOBID NAME STATE" of this cluster's jobs.
std::vector<std::string> jobs() {
  std::vector<std::string> out;
  std::istringstream in(shell("squeue -h -o '%i %j %T' 2>&1"));
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

// Waits until a RUNNING job's name contains `part`; returns its id ("" after `seconds`).
std::string running_job(const std::string& part, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    for (const std::string& j : jobs()) {
      std::istringstream in(j);
      std::string id, name, state;
      in >> id >> name >> state;
      if (name.find(part) != std::string::npos && state == "RUNNING") return id;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return "";
}

// The runner, wrapped to log where it ran: "job=<SLURM_JOB_ID or none> cvd=<CUDA_VISIBLE_DEVICES>".
struct Cli : FakeCliDir {
  Cli() {
    drop = {"CUDA_VISIBLE_DEVICES", "SLURM_*", "FAKE_SRUN*"};
    env["SLURM_CONF"] = std::getenv("SLURM_CONF") != nullptr ? std::getenv("SLURM_CONF") : "";
    const std::string wrapper = dir.file("runner-in-job");
    write_file(wrapper, "#!/bin/sh\necho \"job=${SLURM_JOB_ID:-none} cvd=${CUDA_VISIBLE_DEVICES-unset} $*\" >> " + dir.file("jobs.log") +
                            "\nexec " + env["MSKB_RUNNER"] + " \"$@\"\n");
    std::filesystem::permissions(wrapper, std::filesystem::perms::owner_all);
    env["MSKB_RUNNER"] = wrapper;
  }
  // Every runner (evaluations and device queries) ran in a Slurm job, with a GPU of its own when
  // the cluster binds them; returns the evaluations (FAKE_RUNNER_LOG's lines). `local_probe`: a
  // device-identify query may run here (a cudamaster resume that names no executor looks for
  // local GPUs before it reads the recorded one; it tolerates none).
  std::size_t evaluations_in_jobs(bool local_probe = false) const {
    const auto lines = read_lines(dir.file("jobs.log"));
    EXPECT_FALSE(lines.empty());
    for (const std::string& l : lines) {
      if (local_probe && l.find("/device-identify/") != std::string::npos) continue;
      EXPECT_EQ(l.find("job=none"), std::string::npos) << "a runner outside Slurm: " << l;
      if (g_bound_gpus) {
        EXPECT_EQ(l.find("cvd=unset"), std::string::npos) << "a runner without its GPU: " << l;
      }
    }
    return read_lines(dir.file("runner.log")).size();
  }
  Proc mskb(std::vector<std::string> args) { return run_program(args, CM_MSKB_BIN); }
  Proc cudamaster(const std::vector<std::string>& args) { return run_program(args, CM_CUDAMASTER_BIN); }
  std::vector<std::string> slurm() const { return {"--executor", "slurm", "--partition", "gpu", "--slurm-workdir", dir.file("work")}; }
};

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// What a report says independently of how it was run: the contenders and their dispositions,
// every timed shape, the scores.
json essence(const json& report) {
  json out = {{"contenders", json::array()}, {"results", json::array()}, {"scores", report["scores"]}};
  for (const json& c : report["contenders"])
    out["contenders"].push_back({c["task"], c["precision"], c["contender"], c["disposition"], c["checks_passed"], c["checks_total"],
                                 c["message"]});
  for (const json& r : report["results"])
    out["results"].push_back({r["task"], r["precision"], r["contender"], r["sweep"], r["shape"], r["disposition"], r["time_us"]["median"]});
  return out;
}

std::set<std::string> groups_of(const json& report) {
  std::set<std::string> g;
  for (const json& c : report["contenders"]) g.insert(c["task"].get<std::string>() + "|" + c["precision"].get<std::string>());
  return g;
}

bool no_job_named(const std::string& part) {
  for (const std::string& j : jobs())
    if (j.find(part) != std::string::npos) return false;
  return true;
}

}  // namespace

// Six groups as six Slurm jobs (at most four at once): the same report and table as the local
// run; every kernel was built once, by the driver, and the jobs found them in the shared cache.
TEST(MskbSlurm, ReportEqualsTheLocalRun) {
  // One pass (--checks-per-gpu auto would depend on the host): one evaluation per contender.
  const std::vector<std::string> run = {"run", "--task", "vector_add,spmv_csr,dot_product", "--precision", "all", "--budget", "0.01",
                                        "--shape-seed", "7", "--checks-per-gpu", "1"};
  Cli local;
  const Proc l = local.mskb(concat(run, {"--json", local.dir.file("r.json")}));
  ASSERT_EQ(l.code, 0) << l.err;
  Cli c;
  const Proc s = c.mskb(concat(concat(run, c.slurm()), {"--max-jobs", "4", "--json", c.dir.file("r.json")}));
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_EQ(s.out, l.out);
  const json sj = json::parse(read_file(c.dir.file("r.json"))), lj = json::parse(read_file(local.dir.file("r.json")));
  EXPECT_EQ(essence(sj), essence(lj));
  EXPECT_EQ(sj["contenders"].size(), 12u);
  EXPECT_FALSE(sj.contains("partial"));
  EXPECT_EQ(sj["shape_seed"], 7);
  EXPECT_EQ(sj["device"]["name"], lj["device"]["name"]);
  for (const json& x : sj["contenders"]) EXPECT_TRUE(x["build"]["cache_hit"].get<bool>()) << x.dump();
  EXPECT_NE(s.err.find("built 9 kernels here (0 from the cache)"), std::string::npos) << s.err;
  // --max-jobs 4: the fifth unit starts after one of the first four is done.
  EXPECT_GT(s.err.find("dot_product fp32: submitted"), s.err.find(": done (1/6 units")) << s.err;
  EXPECT_NE(s.err.find("6 units as Slurm jobs (slurm (srun --partition=gpu; work dir " + c.dir.file("work") + "); at most 4 at once"),
            std::string::npos)
      << s.err;
  // Each evaluation ran in a job that holds one (fake) GPU.
  EXPECT_EQ(c.evaluations_in_jobs(), 12u);
  EXPECT_EQ(read_lines(local.dir.file("runner.log")).size(), 12u);

  // mskb check too: the same PASS lines.
  const std::vector<std::string> check = {"check", "--task", "vector_add,spmv_csr", "--precision", "fp32", "--shape-seed", "3"};
  const Proc lc = local.mskb(check), sc = c.mskb(concat(check, c.slurm()));
  ASSERT_EQ(sc.code, 0) << sc.err;
  EXPECT_EQ(sc.out, lc.out);
  EXPECT_NE(sc.out.find("PASS spmv_csr fp32"), std::string::npos) << sc.out;

  const Proc bad = c.mskb({"run", "--task", "vector_add", "--partition", "gpu"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--partition needs --executor slurm"), std::string::npos) << bad.err;
}

// A job cancelled while it runs: with --retries 1 it runs again and the report is whole; with
// --retries 0 the unit is reported failed with its reason (exit 1, the report partial).
TEST(MskbSlurm, ACancelledJobIsRetriedOrReportedFailed) {
  for (const int retries : {1, 0}) {
    SCOPED_TRACE("--retries " + std::to_string(retries));
    Cli c;
    c.env["FAKE_RUNNER_SLEEP_MS"] = "1000";  // each unit runs for seconds: the scancel lands while it runs
    const std::vector<std::string> args =
        concat(concat({"run", "--task", "vector_add,spmv_csr", "--precision", "fp32", "--budget", "0.01", "--json", c.dir.file("r.json")},
                      c.slurm()),
               {"--retries", std::to_string(retries)});
    const pid_t pid = spawn(args, c.env, c.dir.file(""), "driver", CM_MSKB_BIN, c.drop);
    const std::string id = running_job(".spmv_csr.fp32", 30);
    ASSERT_FALSE(id.empty()) << shell("squeue");
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the unit is under way
    shell("scancel " + id);
    const Proc p = finish(pid, c.dir.file(""), "driver");
    const json r = json::parse(read_file(c.dir.file("r.json")));
    if (retries == 1) {
      ASSERT_EQ(p.code, 0) << p.err;
      EXPECT_NE(p.err.find("spmv_csr.fp32: attempt 1 failed (the job was cancelled"), std::string::npos) << p.err;
      EXPECT_NE(p.err.find("retrying"), std::string::npos) << p.err;
      EXPECT_EQ(groups_of(r), (std::set<std::string>{"vector_add|fp32", "spmv_csr|fp32"}));
      EXPECT_EQ(r["contenders"].size(), 4u);
      EXPECT_FALSE(r.contains("partial"));
      EXPECT_TRUE(std::filesystem::exists(c.dir.file("work")));
    } else {
      EXPECT_EQ(p.code, 1) << p.err;
      EXPECT_NE(p.err.find("FAILED unit spmv_csr fp32 after 1 attempt: the job was cancelled"), std::string::npos) << p.err;
      EXPECT_TRUE(r.value("partial", false));
      EXPECT_EQ(r["incomplete_groups"], json({"spmv_csr|fp32"}));
      ASSERT_EQ(r["failed_units"].size(), 1u);
      EXPECT_EQ(r["failed_units"][0]["task"], "spmv_csr");
      EXPECT_EQ(r["failed_units"][0]["attempts"], 1);
      EXPECT_TRUE(std::filesystem::exists(r["failed_units"][0]["log"].get<std::string>()));
      EXPECT_TRUE(groups_of(r).count("vector_add|fp32"));
    }
  }
}

// SIGTERM to the driver cancels its jobs (none is left in the queue) and leaves a partial report
// of the finished units; --skip-done runs only what is missing; merged, the two make the whole run.
TEST(MskbSlurm, AStoppedDriverCancelsItsJobsAndSkipDoneContinues) {
  Cli c;
  c.env["FAKE_RUNNER_SLEEP_MS"] = "800";
  const std::vector<std::string> run = concat(
      {"run", "--task", "vector_add,spmv_csr,dot_product", "--precision", "fp32", "--budget", "0.01", "--shape-seed", "5"}, c.slurm());
  const pid_t pid = spawn(concat(run, {"--max-jobs", "1", "--json", c.dir.file("a.json")}), c.env, c.dir.file(""), "driver", CM_MSKB_BIN,
                          c.drop);
  // Stop it while the second unit runs (the first one's groups are in the report).
  bool first_done = false;
  for (int i = 0; i < 600 && !first_done; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    first_done = read_file(c.dir.file("a.json")).find("\"vector_add\"") != std::string::npos;
  }
  ASSERT_TRUE(first_done);
  ASSERT_FALSE(running_job(".spmv_csr.fp32", 30).empty());
  ::kill(pid, SIGTERM);
  const Proc p = finish(pid, c.dir.file(""), "driver");
  EXPECT_EQ(p.code, 128 + SIGTERM) << p.err;
  EXPECT_NE(p.err.find("interrupted: 1 Slurm job cancelled; 1 of 3 units finished; continue with --skip-done " + c.dir.file("a.json")),
            std::string::npos)
      << p.err;
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = no_job_named(".spmv_csr.fp32") && no_job_named(".dot_product.fp32");
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(gone) << shell("squeue");
  const json a = json::parse(read_file(c.dir.file("a.json")));
  EXPECT_TRUE(a.value("partial", false));
  EXPECT_EQ(groups_of(a), (std::set<std::string>{"vector_add|fp32"}));

  c.env.erase("FAKE_RUNNER_SLEEP_MS");
  const Proc b = c.mskb(concat(run, {"--skip-done", c.dir.file("a.json"), "--json", c.dir.file("b.json")}));
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_NE(b.err.find("skipping 1 (task, precision) group already complete"), std::string::npos) << b.err;
  EXPECT_NE(b.err.find("2 units as Slurm jobs"), std::string::npos) << b.err;
  const json bj = json::parse(read_file(c.dir.file("b.json")));
  EXPECT_EQ(groups_of(bj), (std::set<std::string>{"spmv_csr|fp32", "dot_product|fp32"}));
  const Proc m = c.mskb({"merge", c.dir.file("a.json"), c.dir.file("b.json"), "--expect", "vector_add,spmv_csr,dot_product", "--json",
                         c.dir.file("m.json")});
  EXPECT_EQ(m.code, 1) << m.err;  // bf16 was not part of the run
  const json merged = json::parse(read_file(c.dir.file("m.json")));
  EXPECT_EQ(merged["contenders"].size(), 6u);
  EXPECT_EQ(merged["incomplete_groups"], json({"vector_add|bf16", "spmv_csr|bf16", "dot_product|bf16"}));
}

// cudamaster: the story run (replayed LLM answers) with every evaluation a real job step equals
// the local run; two tasks at both precisions; a run killed mid-way resumes on Slurm.
TEST(CudamasterSlurm, OptimizeRunsItsEvaluationsAsRealJobSteps) {
  Cli local;
  const std::string cassette = record_story(local.dir.file("story.jsonl"));
  auto story = [&](Cli& c) {
    return std::vector<std::string>{"optimize", "--task", "spmv_csr", "--llm", "replay:" + cassette, "--rounds", "2", "--profile", "none",
                                    "--db", c.db(), "--out", c.dir.file("out")};
  };
  auto cm_slurm = [](Cli& c) {
    return std::vector<std::string>{"--executor", "slurm", "--slurm-args", "--partition=gpu --time=00:10:00", "--slurm-workdir",
                                    c.dir.file("work")};
  };
  const Proc l = local.cudamaster(concat(story(local), {"--json"}));
  ASSERT_EQ(l.code, 0) << l.err;
  Cli c;
  const Proc s = c.cudamaster(concat(concat(story(c), cm_slurm(c)), {"--json"}));
  ASSERT_EQ(s.code, 0) << s.err;
  const json sl = json::parse(s.out), lo = json::parse(l.out);
  for (const char* k : {"status", "p", "best_origin", "vs_vendor", "vendor_p", "rounds"}) EXPECT_EQ(sl["tasks"][0][k], lo["tasks"][0][k]) << k;
  EXPECT_EQ(sl["config"]["executor"]["kind"], "slurm");
  EXPECT_EQ(read_file(c.dir.file("out") + "/spmv_csr_fp32.cu"), read_file(local.dir.file("out") + "/spmv_csr_fp32.cu"));
  EXPECT_EQ(c.evaluations_in_jobs(), read_lines(local.dir.file("runner.log")).size());

  // Two tasks, two rounds each, the LLM answers replayed on the driver and every evaluation a real
  // job step: the same results as the same run without Slurm.
  Cli two, two_local;
  const std::string cassette2 = record_two_task_story(two_local.dir.file("two.jsonl"));
  auto two_args = [&](Cli& x) {
    return std::vector<std::string>{"optimize", "--task", "spmv_csr,vector_add", "--llm", "replay:" + cassette2, "--rounds", "2",
                                    "--profile", "none", "--db", x.db(), "--out", x.dir.file("out"), "--json"};
  };
  const Proc tl = two_local.cudamaster(two_args(two_local));
  ASSERT_EQ(tl.code, 0) << tl.err;
  const Proc t = two.cudamaster(concat(concat(two_args(two), cm_slurm(two)), {"--slurm-jobs", "3"}));
  ASSERT_EQ(t.code, 0) << t.err;
  const json tj = json::parse(t.out), tlj = json::parse(tl.out);
  ASSERT_EQ(tj["tasks"].size(), 2u) << t.out;
  ASSERT_EQ(tlj["tasks"].size(), 2u) << tl.out;
  for (std::size_t i = 0; i < 2; ++i)
    for (const char* k : {"task", "status", "p", "best_origin", "rounds"}) EXPECT_EQ(tj["tasks"][i][k], tlj["tasks"][i][k]) << i << " " << k;
  EXPECT_EQ(tj["tasks"][1]["task"], "vector_add");
  EXPECT_NEAR(tj["tasks"][0]["p"].get<double>(), 2.5, 1e-9) << "spmv_csr's round-2 kernel, replayed";
  EXPECT_NEAR(tj["tasks"][1]["p"].get<double>(), 1.6, 1e-9) << "vector_add's round-1 kernel, replayed";
  EXPECT_EQ(tj["config"]["executor"]["kind"], "slurm");
  EXPECT_EQ(two.evaluations_in_jobs(), read_lines(two_local.dir.file("runner.log")).size());

  // Killed (SIGKILL) while an evaluation runs as a job step, then resumed: finished, as the local run.
  Cli k;
  k.env["FAKE_RUNNER_SLEEP_MS"] = "250";
  const pid_t pid = spawn(concat(story(k), cm_slurm(k)), k.env, k.dir.file(""), "killed", CM_CUDAMASTER_BIN, k.drop);
  bool killed = false;
  for (int i = 0; i < 1200 && !killed; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    if (read_lines(k.dir.file("runner.log")).size() >= 3) {
      ::kill(pid, SIGKILL);
      killed = true;
    }
  }
  const Proc first = finish(pid, k.dir.file(""), "killed");
  ASSERT_TRUE(killed);
  ASSERT_EQ(first.code, 128 + SIGKILL);
  k.env.erase("FAKE_RUNNER_SLEEP_MS");
  const Proc resumed = k.cudamaster({"optimize", "--resume", "1", "--db", k.db(), "--json"});
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming:"), std::string::npos) << resumed.err;
  EXPECT_NE(resumed.err.find("GPU work: slurm (srun --partition=gpu --time=00:10:00"), std::string::npos) << resumed.err;
  const json rj = json::parse(resumed.out);
  for (const char* key : {"status", "p", "best_origin", "vs_vendor"}) EXPECT_EQ(rj["tasks"][0][key], lo["tasks"][0][key]) << key;
  EXPECT_EQ(read_file(k.dir.file("out") + "/spmv_csr_fp32.cu"), read_file(local.dir.file("out") + "/spmv_csr_fp32.cu"));
  EXPECT_GE(k.evaluations_in_jobs(true), 9u);
}
