// Usage errors and the first hour through the real binaries (mskb and cudamaster over the fake
// runner, MSKB_RUNNER): a misspelt option gets the nearest one, a missing input file is the same
// one-line usage error (exit 2) on every command before any work or GPU probe (FAKE_GPUS=0 would
// say "no CUDA device"), `--shape` runs a task's ad-hoc shapes and records them so `mskb rerun`
// runs them again, and on a machine without an NVIDIA driver the real runner's probe says so.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "mskb/util/files.hpp"
#include "support/child_process.hpp"

using namespace cmtest;

namespace {

struct Cli : FakeCliDir {
  Cli() { env["FAKE_GPUS"] = "0"; }  // a GPU probe would fail: what is checked before it, is
  Proc mskb(const std::vector<std::string>& args) { return run_program(args, CM_MSKB_BIN); }
  Proc cudamaster(const std::vector<std::string>& args) { return run_program(args, CM_CUDAMASTER_BIN); }
};

std::string only_line(const Proc& p) {
  std::string e = p.err;
  if (!e.empty() && e.back() == '\n') e.pop_back();
  EXPECT_EQ(e.find('\n'), std::string::npos) << "one line: " << p.err;
  return e;
}

json read_json(const std::string& path) { return json::parse(read_file(path)); }

}  // namespace

TEST(Usage, AMisspeltOptionGetsTheNearestOne) {
  Cli c;
  Proc p = c.mskb({"build", "--taks", "vector_add"});
  EXPECT_EQ(p.code, 2);
  EXPECT_EQ(only_line(p), "mskb build: unknown option '--taks' (did you mean '--task'?)");
  p = c.mskb({"run", "--task", "vector_add", "--sweeps", "large"});
  EXPECT_EQ(p.code, 2);
  EXPECT_EQ(only_line(p), "mskb run: unknown option '--sweeps' (did you mean '--sweep'?)");
  p = c.cudamaster({"optimize", "--task", "spmv_csr", "--rounsd", "2"});
  EXPECT_EQ(p.code, 2);
  EXPECT_EQ(only_line(p), "cudamaster optimize: unknown option '--rounsd' (did you mean '--rounds'?)");
  p = c.mskb({"chekc", "--task", "vector_add"});
  EXPECT_EQ(p.code, 2);
  EXPECT_EQ(only_line(p), "mskb: unknown command 'chekc' (did you mean 'check'?)");
  p = c.mskb({"run", "--budget", "-1", "--task", "vector_add"});
  EXPECT_EQ(p.code, 2);
  EXPECT_EQ(only_line(p), "mskb run: --budget: must be > 0, got -1 (mskb run --help)");
}

// Every command that reads a file says it is missing the same way, before it builds or probes anything.
TEST(Usage, AMissingInputFileIsExit2OnEveryCommand) {
  Cli c;
  const std::string nope = c.dir.file("nope");
  write_file(c.dir.file("k.cu"), "extern \"C\" void vector_add(const float* a, const float* b, float* c, int n) {}\n");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"build", "--kernel", nope + ".cu"}, "mskb build: --kernel: no such file: " + nope + ".cu (mskb build --help)"},
      {{"build", "--task-file", nope + ".toml"}, "mskb build: --task-file: no such file: " + nope + ".toml (mskb build --help)"},
      {{"check", "--task", "vector_add", "--kernel", nope + ".cu"}, "mskb check: --kernel: no such file: " + nope + ".cu (mskb check --help)"},
      {{"run", "--task", "vector_add", "--kernel", c.dir.file("k.cu"), "--kernel", nope + ".cu"},
       "mskb run: --kernel: no such file: " + nope + ".cu (mskb run --help)"},
      {{"run", "--task-file", nope + ".toml"}, "mskb run: --task-file: no such file: " + nope + ".toml (mskb run --help)"},
      {{"run", "--submission", nope}, "mskb run: --submission: no such folder: " + nope + " (mskb run --help)"},
      {{"run", "--task", "spmv_csr", "--matrix", nope + ".mtx"}, "mskb run: --matrix: no such file: " + nope + ".mtx (mskb run --help)"},
      {{"run", "--task", "vector_add", "--skip-done", nope + ".json"}, "mskb run: --skip-done: no such file: " + nope + ".json (mskb run --help)"},
      {{"report", nope + ".json"}, "mskb report: no such file: " + nope + ".json (mskb report --help)"},
      {{"compare", nope + "1.json", nope + "2.json"}, "mskb compare: no such file: " + nope + "1.json (mskb compare --help)"},
      {{"rerun", nope + ".json"}, "mskb rerun: no such file: " + nope + ".json (mskb rerun --help)"},
      {{"merge", nope + ".json"}, "mskb merge: no such file: " + nope + ".json (mskb merge --help)"},
      {{"task", "validate", nope + ".toml"}, "mskb task validate: no such file: " + nope + ".toml (mskb task validate --help)"},
  };
  for (const auto& [args, line] : cases) {
    const Proc p = c.mskb(args);
    EXPECT_EQ(p.code, 2) << args[0] << ": " << p.err;
    EXPECT_EQ(only_line(p), line);
  }
  const std::vector<std::pair<std::vector<std::string>, std::string>> cm = {
      {{"optimize", "--task-file", nope + ".toml", "--llm", "replay:x"},
       "cudamaster optimize: --task-file: no such file: " + nope + ".toml (cudamaster optimize --help)"},
      {{"optimize", "--task", "vector_add", "--llm", "replay:x", "--pricing", nope + ".json"},
       "cudamaster optimize: --pricing: no such file: " + nope + ".json (cudamaster optimize --help)"},
      {{"profile", "--import", nope + ".csv"}, "cudamaster profile: --import: no such file: " + nope + ".csv (cudamaster profile --help)"},
      {{"profile", "--task", "vector_add", "--kernel", nope + ".cu"},
       "cudamaster profile: --kernel: no such file: " + nope + ".cu (cudamaster profile --help)"},
      {{"llm-check", "--llm", "replay:x", "--pricing", nope + ".json"},
       "cudamaster llm-check: --pricing: no such file: " + nope + ".json (cudamaster llm-check --help)"},
  };
  for (const auto& [args, line] : cm) {
    const Proc p = c.cudamaster(args);
    EXPECT_EQ(p.code, 2) << args[0] << ": " << p.err;
    EXPECT_EQ(only_line(p), line);
  }
  EXPECT_FALSE(std::filesystem::exists(c.dir.file("runner.log"))) << "a runner was started";
}

// `--shape` problems are usage errors naming the problem, before any GPU probe.
TEST(Shape, ProblemsAreUsageErrors) {
  Cli c;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"run", "--task", "vector_add", "--shape", "M=4"},
       "mskb: error: --shape 'M=4': unknown dimension 'M' (vector_add's dimensions: N); missing dimension N (vector_add needs N)"},
      {{"check", "--task", "matrix_mul", "--shape", "M=512,N=256"}, "mskb: error: --shape 'M=512,N=256': missing dimension K (matrix_mul needs M, N, K)"},
      {{"run", "--task", "vector_add", "--shape", "N=0"}, "mskb: error: --shape 'N=0': N=0: must be at least 1"},
      {{"run", "--task", "vector_add,softmax", "--shape", "N=4"},
       "mskb: error: --shape needs a single task (--task T or --task-file F): shapes are a task's"},
      {{"run", "--task", "vector_add", "--shape", "N=4", "--sweep", "large"}, "mskb: error: --shape replaces the sweeps: drop --sweep"},
      {{"run", "--task", "vector_add", "--shape", "N=4", "--shape", "N=4"}, "mskb: error: --shape N=4 is given twice"},
  };
  for (const auto& [args, line] : cases) {
    const Proc p = c.mskb(args);
    EXPECT_EQ(p.code, 2) << p.err;
    EXPECT_EQ(only_line(p), line);
  }
}

// An ad-hoc shape is checked and timed as sweep "custom" (nothing else: no paper, held-out or random
// shapes), the report says so, and `mskb rerun` runs the same shapes again.
TEST(Shape, RunsTheShapesAndRerunReproducesThem) {
  Cli c;
  c.env.erase("FAKE_GPUS");
  const std::string report = c.dir.file("run.json");
  const Proc p = c.mskb({"run", "--task", "matrix_mul", "--precision", "fp32", "--shape", "M=512,N=256,K=128", "--shape", "K=7,M=3,N=5",
                         "--budget", "0.01", "-q", "--json", report});
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_NE(p.err.find("mskb run: warning: --shape 'M=512,N=256,K=128': N <= K in every declared shape of matrix_mul"), std::string::npos) << p.err;
  EXPECT_NE(p.out.find("SOL by shape (custom)"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("shapes: ad-hoc (--shape, sweep custom; not the task's sweeps): M=512,N=256,K=128; M=3,N=5,K=7"), std::string::npos)
      << p.out;
  const json r = read_json(report);
  std::set<std::string> timed;
  for (const json& x : r["results"]) {
    EXPECT_EQ(x["sweep"], "custom") << x.dump();
    timed.insert(x["shape"].dump());
  }
  const std::set<std::string> shapes = {json({{"M", 512}, {"N", 256}, {"K", 128}}).dump(), json({{"M", 3}, {"N", 5}, {"K", 7}}).dump()};
  EXPECT_EQ(timed, shapes);
  for (const json& s : r["scores"]) EXPECT_EQ(s["sweep"], "custom");
  EXPECT_EQ(r["reproduce"]["settings"]["custom_shapes"], json({"M=512,N=256,K=128", "M=3,N=5,K=7"}));
  EXPECT_EQ(r["reproduce"]["settings"]["random_shape_count"], 0);
  for (const json& k : r["contenders"]) EXPECT_EQ(k["checks_total"], 6) << "2 shapes x 3 seeds, nothing else: " << k.dump();

  const std::string again = c.dir.file("rerun.json");
  const Proc rr = c.mskb({"rerun", report, "--json", again, "-q"});
  EXPECT_EQ(rr.code, 0) << rr.err << rr.out;
  std::set<std::string> rerun;
  const json fresh = read_json(again);
  for (const json& x : fresh["results"]) {
    EXPECT_EQ(x["sweep"], "custom");
    rerun.insert(x["shape"].dump());
  }
  EXPECT_EQ(rerun, shapes);
}

// The real mskb-runner on this machine: without an NVIDIA driver the line says no driver is
// loaded (not "driver version is insufficient"). Skipped where a GPU answers or a driver loads.
TEST(NoGpu, TheRealRunnerNamesTheMissingDriver) {
  if (void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(h);
    GTEST_SKIP() << "libcuda.so.1 loads here: this machine has a driver";
  }
  Cli c;
  c.env.erase("FAKE_GPUS");
  c.env["MSKB_RUNNER"] = CM_REAL_RUNNER;
  const Proc p = c.mskb({"device"});
  EXPECT_EQ(p.code, 1) << p.err;
  const std::string line = only_line(p);
  EXPECT_EQ(line.rfind("mskb: no CUDA device (no NVIDIA driver is loaded (libcuda.so.1 cannot be loaded", 0), 0u) << line;
  EXPECT_EQ(line.find("insufficient"), std::string::npos) << line;
  const Proc opt = c.cudamaster({"optimize", "--task", "spmv_csr", "--llm", "replay:" + std::string(CM_SOURCE_DIR) + "/data/demo/spmv_csr_fp32.jsonl",
                                 "--db", c.db()});
  EXPECT_EQ(opt.code, 1) << opt.err;
  EXPECT_EQ(only_line(opt).rfind("cudamaster: no CUDA device (no NVIDIA driver is loaded", 0), 0u) << opt.err;
}
