// `cudamaster optimize --dry-run` end to end on a machine without a GPU: the spmv_csr demo
// cassette's agents (replay, --replay-match task) against the real nvcc (the harness's recipe and
// cache), with MSKB_RUNNER pointing at nothing, so any evaluation, profile or device probe would
// fail the run. The store must hold the agents' calls, the candidates and their builds (round 1's
// compile error answered by the Debug agent), all marked dry, and no evaluation or profile; every
// output says there is no P.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "cudamaster/store/store.hpp"
#include "mskb/harness/build_info.hpp"
#include "mskb/report/cells.hpp"
#include "support/child_process.hpp"

using namespace cmtest;

namespace {

struct Cli : FakeCliDir {
  Cli() {
    env.erase("MSKB_NVCC");  // the real compiler
    env["MSKB_RUNNER"] = dir.file("no-runner");
    env["MSKB_SANITIZER"] = dir.file("no-sanitizer");
  }
};

std::vector<std::string> dry_args(const Cli& c) {
  return {"optimize", "--dry-run", "--task", "spmv_csr", "--llm", "replay:" + std::string(CM_SOURCE_DIR) + "/data/demo/spmv_csr_fp32.jsonl",
          "--replay-match", "task", "--rounds", "2", "--db", c.db(), "--out", c.dir.file("out"), "--json"};
}

}  // namespace

TEST(DryRun, AgentsAndCompilerWithoutAGpu) {
  Cli c;
  const Proc p = c.run_program(dry_args(c), CM_CUDAMASTER_BIN);
  ASSERT_EQ(p.code, 0) << p.err;
  // The outputs: the summary JSON and the tables say dry, with no score.
  const json summary = json::parse(p.out);
  EXPECT_EQ(summary["dry_run"], true);
  EXPECT_EQ(summary["config"]["dry_run"], true);
  EXPECT_EQ(summary["config"]["loop"]["dry_run"], true);
  EXPECT_EQ(summary["suite"], json({{"tasks", 1}, {"dry_run", true}})) << "no success rate, fast_p or mean P";
  ASSERT_EQ(summary["tasks"].size(), 1u);
  const json& t = summary["tasks"][0];
  EXPECT_EQ(t["status"], "finished");
  EXPECT_TRUE(t["p"].is_null());
  EXPECT_EQ(t["candidates"], 3) << "round 1: coder + debug 1; round 2: coder";
  EXPECT_EQ(t["compiled"], 2) << "round 1's coder answer does not compile (__shfl_down), debug 1's and round 2's do";
  EXPECT_NE(p.err.find("dry run: the agents and the compiler only"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("DRY RUN"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("round 1: coder: compile_error"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("compiled: dry run, not evaluated (no P)"), std::string::npos) << p.err;
  EXPECT_EQ(p.err.find("best P"), std::string::npos) << p.err;
  EXPECT_EQ(p.err.find("no CUDA device"), std::string::npos) << p.err;

  // The store: the run and its job marked dry; the agents' calls, candidates and builds; no evaluation, no profile.
  auto store = cudamaster::store::RunStore::open(c.db());
  const auto run = store->run(summary["run"].get<std::int64_t>());
  ASSERT_TRUE(run);
  EXPECT_EQ(run->config["dry_run"], true);
  // The code that ran the loop is part of the run's record, and the summary and `show` name it.
  EXPECT_EQ(run->config["tool"]["name"], "cudamaster");
  EXPECT_EQ(run->config["tool"]["commit"], std::string(mskb::kGitCommit));
  const std::string code = mskb::report::code_line(run->config["tool"]);
  EXPECT_EQ(code.rfind("Code: cudamaster ", 0), 0u) << code;
  EXPECT_NE(p.err.find(code), std::string::npos) << p.err;
  EXPECT_NE(c.run_program({"show", std::to_string(run->id), "--db", c.db()}, CM_CUDAMASTER_BIN).out.find(code), std::string::npos);
  {  // A session resumed by other code says so and is recorded beside the code the run began with.
    json cfg = run->config;
    cfg["tool"]["commit"] = "0000000";
    store->set_run_config(run->id, cfg);
    const Proc resumed = c.run_program({"optimize", "--resume", std::to_string(run->id), "--db", c.db()}, CM_CUDAMASTER_BIN);
    EXPECT_EQ(resumed.code, 0) << resumed.err;
    EXPECT_NE(resumed.err.find("this session runs " + mskb::report::code_text(run->config["tool"]) +
                               " (the run began with cudamaster " + run->config["tool"]["version"].get<std::string>() + " at commit 0000000"),
              std::string::npos) << resumed.err;
    const std::string show = c.run_program({"show", std::to_string(run->id), "--db", c.db()}, CM_CUDAMASTER_BIN).out;
    EXPECT_NE(show.find("Code: cudamaster " + run->config["tool"]["version"].get<std::string>() + " at commit 0000000"), std::string::npos) << show;
    EXPECT_NE(show.find("resumed with " + mskb::report::code_text(run->config["tool"])), std::string::npos) << show;
    store->set_run_config(run->id, run->config);
  }
  const auto jobs = store->jobs(run->id);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].result["dry_run"], true);
  EXPECT_TRUE(jobs[0].result["best"].is_null());
  std::vector<std::string> agents;
  for (const json& call : store->rows("llm_calls", jobs[0].id)) agents.push_back(call["agent"].get<std::string>());
  EXPECT_EQ(agents, (std::vector<std::string>{"planner", "coder", "debug", "planner", "coder"}));
  // The Planner was told there is no profile, not shown numbers.
  const json first = store->rows("llm_calls", jobs[0].id).front();
  EXPECT_NE(first.dump().find("dry run: no profile"), std::string::npos);
  std::multiset<std::string> origins;
  for (const json& cand : store->rows("candidates", jobs[0].id)) origins.insert(cand["origin"].get<std::string>());
  EXPECT_EQ(origins, (std::multiset<std::string>{"baseline", "coder", "debug", "coder"}));
  int ok = 0, failed = 0;
  for (const json& b : store->rows("builds", jobs[0].id)) (b["ok"] == 1 || b["ok"] == true ? ok : failed)++;  // SQLite: 0/1
  EXPECT_EQ(ok, 3) << "the baseline, debug 1's answer and round 2's";
  EXPECT_EQ(failed, 1);
  EXPECT_TRUE(store->rows("evaluations", jobs[0].id).empty());
  EXPECT_TRUE(store->rows("profiles", jobs[0].id).empty());
  std::vector<std::string> outcomes;
  for (const json& r : store->rows("rounds", jobs[0].id)) outcomes.push_back(r["outcome"].get<std::string>());
  EXPECT_EQ(outcomes, (std::vector<std::string>{"compiled", "compiled"}));
  // The kernels are on disk to read; no "best" kernel is claimed.
  EXPECT_TRUE(std::filesystem::exists(c.dir.file("out") + "/candidates/spmv_csr_fp32"));
  EXPECT_FALSE(std::filesystem::exists(c.dir.file("out") + "/spmv_csr_fp32.cu"));

  // `cudamaster show` reads it back as dry.
  const Proc show = c.run_program({"show", std::to_string(run->id), "--db", c.db()}, CM_CUDAMASTER_BIN);
  EXPECT_EQ(show.code, 0) << show.err;
  EXPECT_NE((show.out + show.err).find("DRY RUN"), std::string::npos) << show.out;
}

TEST(DryRun, UsageErrors) {
  Cli c;
  std::vector<std::string> args = dry_args(c);
  args.insert(args.end(), {"--gpus", "0"});
  Proc p = c.run_program(args, CM_CUDAMASTER_BIN);
  EXPECT_EQ(p.code, 2);
  EXPECT_NE(p.err.find("--dry-run uses no GPU"), std::string::npos) << p.err;
  p = c.run_program({"optimize", "--dry-run", "--resume", "1", "--db", c.db()}, CM_CUDAMASTER_BIN);
  EXPECT_EQ(p.code, 2);
  EXPECT_NE(p.err.find("drop --dry-run"), std::string::npos) << p.err;
}
