// What every command of both tools promises (docs/reference.md): usage errors in one line with exit 2,
// --version, mskb list, no GPU as one clean line, the defaults in --help, and --json as a file or
// stdout.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "cli_fixture.hpp"
#include "mskb/core/registry.hpp"

using namespace cmtest;
using agents::Agent;

// The command-line contract of both tools: a usage error (unknown command or option, a value out
// of range or not among the choices, nothing to do) is one line on stderr and exit 2.
TEST(CliContract, UsageErrorsAreOneLineAndExitTwo) {
  Cli c;
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {CM_MSKB_BIN, {"bogus"}},
      {CM_MSKB_BIN, {}},
      {CM_MSKB_BIN, {"run", "--task", "vector_add", "--budget", "-1"}},
      {CM_MSKB_BIN, {"run", "--task", "vector_add", "--budget", "abc"}},
      {CM_MSKB_BIN, {"run", "--task", "vector_add", "--nope"}},
      {CM_MSKB_BIN, {"run", "--task", "vector_add", "--jobs", "0"}},
      {CM_MSKB_BIN, {"check", "--task", "vector_add", "--timeout", "0"}},
      {CM_MSKB_BIN, {"list", "--category", "nope"}},
      {CM_MSKB_BIN, {"build"}},
      {CM_MSKB_BIN, {"build", "--task", "vector_add", "--arch", "sm_70"}},  // the (fake) CUDA 13 nvcc lacks sm_70
      {CM_MSKB_BIN, {"run", "--task", "vector_add", "--arch", "99"}},
      {CM_CUDAMASTER_BIN, {"bogus"}},
      {CM_CUDAMASTER_BIN, {"optimize", "--task", "vector_add", "--rounds", "-1"}},
      {CM_CUDAMASTER_BIN, {"optimize", "--task", "vector_add", "--debug-loops", "-2"}},
      {CM_CUDAMASTER_BIN, {"optimize", "--task", "vector_add", "--jobs", "0"}},
      {CM_CUDAMASTER_BIN, {"optimize", "--task", "vector_add", "--budget-usd", "-5"}},
      {CM_CUDAMASTER_BIN, {"optimize", "--task", "vector_add", "--attempts", "0"}},
      {CM_CUDAMASTER_BIN, {"optimize", "--task", "vector_add", "--max-tokens", "-5"}},
      {CM_CUDAMASTER_BIN, {"optimize", "--task", "vector_add", "--timeout", "0"}},
      {CM_CUDAMASTER_BIN, {"optimize", "--task", "vector_add", "--reasoning-effort", "extreme"}},
      {CM_CUDAMASTER_BIN, {"llm-check", "--attempts", "0"}},
      {CM_CUDAMASTER_BIN, {"optimize", "--task", "vector_add", "--arch", "60"}},
  };
  for (const auto& [program, args] : cases) {
    const Proc p = c.run(args, program);
    std::string what = program.substr(program.rfind('/') + 1);
    for (const std::string& a : args) what += " " + a;
    EXPECT_EQ(p.code, 2) << what << "\n" << p.err;
    EXPECT_EQ(std::count(p.err.begin(), p.err.end(), '\n'), 1) << what << ": " << p.err;
    // "mskb: ..." or, naming the subcommand, "mskb run: ..."
    const std::string tool = program.substr(program.rfind('/') + 1);
    EXPECT_TRUE(p.err.rfind(tool + ": ", 0) == 0 || p.err.rfind(tool + " " + (args.empty() ? "" : args[0]) + ": ", 0) == 0) << what << ": " << p.err;
    EXPECT_TRUE(p.out.empty()) << what << ": " << p.out;
  }
  const Proc unknown = c.run({"bogus"}, CM_MSKB_BIN);
  EXPECT_NE(unknown.err.find("unknown command 'bogus' (one of: list, device, run, check, build, merge, "), std::string::npos)
      << unknown.err;
  const Proc old_arch = c.run({"build", "--task", "vector_add", "--arch", "sm_70"}, CM_MSKB_BIN);
  EXPECT_NE(old_arch.err.find("this CUDA toolkit's nvcc does not compile for sm_70 (it does for: 75, 80, "), std::string::npos) << old_arch.err;
  const Proc range = c.run({"optimize", "--task", "vector_add", "--rounds", "-1"});
  EXPECT_NE(range.err.find("--rounds"), std::string::npos) << range.err;
}

// --version on both tools: version, the commit built from, the CUDA toolkit, the default GPU
// architecture of kernels and the data folder.
TEST(CliContract, VersionSaysCommitCudaArchitectureAndData) {
  Cli c;
  for (const std::string program : {CM_MSKB_BIN, CM_CUDAMASTER_BIN}) {
    const Proc p = c.run({"--version"}, program);
    EXPECT_EQ(p.code, 0) << p.err;
    const std::string tool = program.substr(program.rfind('/') + 1);
    EXPECT_EQ(p.out.rfind(tool + " 0.1.0 (commit ", 0), 0u) << p.out;
    EXPECT_NE(p.out.find("\nCUDA 1"), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("kernels compiled for sm_"), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("\ndata: /"), std::string::npos) << p.out;
  }
  const Proc help = c.run({"build", "--help"}, CM_MSKB_BIN);
  EXPECT_NE(help.out.find("(default: sm_"), std::string::npos) << help.out;
}

// `mskb list` fits 100 columns; `mskb list TASK` shows one task in full (semantics, both entry
// points, every sweep, vendor, cost model), `--json` the same task as an object.
TEST(CliContract, ListShowsOneTaskInFullAndTheTableFits) {
  Cli c;
  const Proc table = c.run({"list"}, CM_MSKB_BIN);
  ASSERT_EQ(table.code, 0) << table.err;
  std::istringstream lines(table.out);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
  const mskb::TaskSpec& t = mskb::get_task("spmv_csr");
  const Proc one = c.run({"list", "spmv_csr"}, CM_MSKB_BIN);
  ASSERT_EQ(one.code, 0) << one.err;
  for (const std::string& want : {t.semantics, t.signature(mskb::Precision::fp32), t.signature(mskb::Precision::bf16), t.vendor,
                                  std::string("Paper sweep (6 shapes, timed)"), std::string("Held-out shapes (7 shapes"),
                                  std::string("Large sweep (--sweep large) (4 shapes"), std::string("rows=100003,cols=5000,skew=1"),
                                  std::string("Cost model")})
    EXPECT_NE(one.out.find(want), std::string::npos) << want << "\n" << one.out;
  const Proc js = c.run({"list", "spmv_csr", "--json"}, CM_MSKB_BIN);
  ASSERT_EQ(js.code, 0) << js.err;
  const json j = json::parse(js.out);
  EXPECT_EQ(j.value("name", ""), "spmv_csr");
  EXPECT_EQ(j["heldout_shapes"].size(), t.heldout.size());
  // The work the ABI forces on the vendor route, next to it; a task without a vendor says why.
  ASSERT_FALSE(t.vendor_abi_cost.empty());
  EXPECT_NE(one.out.find(t.vendor_abi_cost), std::string::npos) << one.out;
  EXPECT_EQ(j.value("vendor_abi_cost", ""), t.vendor_abi_cost);
  EXPECT_TRUE(j["vendor_none_reason"].is_null());
  const mskb::TaskSpec& none = mskb::get_task("spmv_coo");
  ASSERT_TRUE(none.vendor.empty());
  ASSERT_FALSE(none.vendor_none_reason.empty());
  const Proc no_vendor = c.run({"list", "spmv_coo"}, CM_MSKB_BIN);
  ASSERT_EQ(no_vendor.code, 0) << no_vendor.err;
  EXPECT_NE(no_vendor.out.find("Vendor contender: none: " + none.vendor_none_reason), std::string::npos) << no_vendor.out;
  const Proc no_vendor_js = c.run({"list", "spmv_coo", "--json"}, CM_MSKB_BIN);
  ASSERT_EQ(no_vendor_js.code, 0) << no_vendor_js.err;
  const json nj = json::parse(no_vendor_js.out);
  EXPECT_TRUE(nj["vendor"].is_null());
  EXPECT_EQ(nj.value("vendor_none_reason", ""), none.vendor_none_reason);
  const Proc unknown = c.run({"list", "nope"}, CM_MSKB_BIN);
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("unknown task 'nope'"), std::string::npos) << unknown.err;
}

// No GPU: both tools say so in one line without source locations and exit 1; optimize stops
// before the run store exists, mskb run writes no report, and mskb check --kernel still reports a
// compile error (file:line) first.
TEST(CliContract, NoGpuIsOneCleanLineAndWritesNothing) {
  Cli c;
  c.env["FAKE_GPUS"] = "0";
  const std::string line = "no CUDA device (cudaGetDeviceCount: no CUDA-capable device is detected)\n";
  const std::string cassette = record_story(c.dir.file("story.jsonl"));
  const Proc opt = c.run(optimize_args(cassette, c.db(), c.dir.file("out")));
  EXPECT_EQ(opt.code, 1) << opt.err;
  EXPECT_EQ(opt.err, "cudamaster: " + line);
  EXPECT_FALSE(std::filesystem::exists(c.db())) << "a run store was created without a GPU";
  EXPECT_FALSE(std::filesystem::exists(c.dir.file("out")));

  const Proc dev = c.run({"device"}, CM_MSKB_BIN);
  EXPECT_EQ(dev.code, 1);
  EXPECT_EQ(dev.err, "mskb: " + line);
  const Proc run = c.run({"run", "--task", "vector_add", "--json", c.dir.file("run.json"), "--csv", c.dir.file("run.csv"), "-q"}, CM_MSKB_BIN);
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err, "mskb: " + line);
  EXPECT_FALSE(std::filesystem::exists(c.dir.file("run.json")));
  EXPECT_FALSE(std::filesystem::exists(c.dir.file("run.csv")));

  const std::string good = c.dir.file("good.cu"), bad = c.dir.file("bad.cu");
  std::ofstream(good) << read_file(mskb::source_root() + "/tasks/algebra/vector_add/baseline_fp32.cu");
  std::ofstream(bad) << read_file(mskb::source_root() + "/tasks/algebra/vector_add/baseline_fp32.cu")
                     << "\n// fake-build: error expected an expression\n";
  const Proc ok = c.run({"check", "--task", "vector_add", "--kernel", good, "-q"}, CM_MSKB_BIN);
  EXPECT_EQ(ok.code, 1);
  EXPECT_EQ(ok.out, "");
  EXPECT_EQ(ok.err, "mskb: " + line);
  const Proc broken = c.run({"check", "--task", "vector_add", "--kernel", bad, "-q"}, CM_MSKB_BIN);
  EXPECT_EQ(broken.code, 1);
  EXPECT_EQ(broken.out.rfind("FAIL vector_add bad.cu: compile error: bad.cu:", 0), 0u) << broken.out;
  EXPECT_NE(broken.out.find("expected an expression"), std::string::npos) << broken.out;
  EXPECT_EQ(broken.err, "mskb: " + line);
}

// --help shows the defaults of the options that have one (CLI11 2.3, Debian 12, prints
// "=0.25"; 2.4, Ubuntu 24.04, "[0.25]").
TEST(CliContract, HelpShowsDefaults) {
  Cli c;
  auto option_line = [](const std::string& help, const std::string& option) {
    const auto at = help.find("\n  " + option + " ");
    return at == std::string::npos ? std::string() : help.substr(at + 1, help.find('\n', at + 1) - at - 1);
  };
  auto shows = [](const std::string& line, const std::string& value) {
    return line.find("=" + value) != std::string::npos || line.find("[" + value + "]") != std::string::npos;
  };
  const Proc run = c.run({"run", "--help"}, CM_MSKB_BIN);
  ASSERT_EQ(run.code, 0);
  EXPECT_TRUE(shows(option_line(run.out, "--budget"), "0.25")) << run.out;
  EXPECT_TRUE(shows(option_line(run.out, "--contenders"), "baseline,vendor")) << run.out;
  const std::string task = option_line(run.out, "--task");
  EXPECT_FALSE(task.empty()) << run.out;
  EXPECT_EQ(task.find('='), std::string::npos) << "no default shown for an empty list: " << run.out;
  EXPECT_EQ(task.find("[]"), std::string::npos) << "no default shown for an empty list: " << run.out;
  EXPECT_EQ(task.find("{}"), std::string::npos) << "no default shown for an empty list (CLI11 2.4): " << run.out;
  const Proc opt = c.run({"optimize", "--help"});
  ASSERT_EQ(opt.code, 0);
  EXPECT_TRUE(shows(option_line(opt.out, "--rounds"), "5")) << opt.out;
  EXPECT_TRUE(shows(option_line(opt.out, "--db"), "cudamaster.db")) << opt.out;
  EXPECT_FALSE(shows(option_line(opt.out, "--budget-usd"), "-1")) << "a negative 'not given' is not a default: " << opt.out;
}

// --json on every command of both tools: `--json -` (or a bare --json) prints only JSON on
// stdout; `--json FILE` writes the same JSON to FILE.
TEST(CliContract, JsonIsAFileOrDashForStdoutOnEveryCommand) {
  Cli c;
  c.env["FAKE_NVCC_EXPORTS"] = "extern-c";  // mskb build checks each kernel's entry points
  const std::string kernel = c.dir.file("k.cu");
  std::ofstream(kernel) << read_file(mskb::source_root() + "/tasks/algebra/vector_add/baseline_fp32.cu");
  const std::string cassette = record_story(c.dir.file("story.jsonl"));
  ASSERT_EQ(c.run({"run", "--task", "vector_add", "--precision", "fp32", "--budget", "0.01", "-q", "--json", c.dir.file("a.json")}, CM_MSKB_BIN).code, 0);
  ASSERT_EQ(c.run(optimize_args(cassette, c.db(), c.dir.file("out"))).code, 0);
  struct Case {
    std::string program;
    std::vector<std::string> args;
    bool same;  // both outputs equal (nothing measured or timed differs between the two calls)
  };
  const std::vector<Case> cases = {
      {CM_MSKB_BIN, {"list"}, true},
      {CM_MSKB_BIN, {"list", "spmv_csr"}, true},
      {CM_MSKB_BIN, {"device"}, false},
      {CM_MSKB_BIN, {"build", "--kernel", kernel}, false},
      {CM_MSKB_BIN, {"run", "--task", "vector_add", "--precision", "fp32", "--budget", "0.01", "-q"}, false},
      {CM_MSKB_BIN, {"check", "--task", "vector_add", "--precision", "fp32", "-q"}, false},
      {CM_MSKB_BIN, {"merge", c.dir.file("a.json")}, true},
      {CM_CUDAMASTER_BIN, {"runs", "--db", c.db()}, true},
      {CM_CUDAMASTER_BIN, {"show", "1", "--db", c.db()}, true},
      {CM_CUDAMASTER_BIN, {"show", "1", "--db", c.db(), "--candidate", "6"}, true},
  };
  for (const Case& k : cases) {
    std::string what = k.program.substr(k.program.rfind('/') + 1);
    for (const std::string& a : k.args) what += " " + a;
    for (const std::string& dash : {std::string("-"), std::string()}) {
      std::vector<std::string> args = k.args;
      args.push_back("--json");
      if (!dash.empty()) args.push_back(dash);
      const Proc p = c.run(args, k.program);
      ASSERT_EQ(p.code, 0) << what << "\n" << p.err;
      const json j = json::parse(p.out, nullptr, false);
      ASSERT_FALSE(j.is_discarded()) << what << " --json " << dash << ": stdout is not JSON alone:\n" << p.out.substr(0, 400);
      std::vector<std::string> to_file = k.args;
      const std::string file = c.dir.file("out" + std::to_string(c.runs) + ".json");
      to_file.insert(to_file.end(), {"--json", file});
      const Proc f = c.run(to_file, k.program);
      ASSERT_EQ(f.code, 0) << what << "\n" << f.err;
      const json fj = json::parse(read_file(file), nullptr, false);
      ASSERT_FALSE(fj.is_discarded()) << what << " --json FILE: " << read_file(file).substr(0, 400);
      EXPECT_EQ(fj.type(), j.type()) << what;
      if (k.same) {
        EXPECT_EQ(fj, j) << what;
      }
      if (!f.out.empty()) {
        EXPECT_TRUE(json::parse(f.out, nullptr, false).is_discarded()) << what << ": --json FILE keeps the text output";
      }
    }
  }
}

