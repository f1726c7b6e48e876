// The shipped four-task demo (data/demo/suite4*): its cassette must match what the loop records
// today from the suite's answers, and replaying it with --replay-match task must walk every task
// through its story - with one job, with four jobs on four GPU lanes (the conversations
// interleave), and with the tasks in another order. Its kernels compile (or fail) as scripted under
// the real nvcc recipe (SuiteDemo.KernelsBehaveAsScriptedWithRealNvcc).
#include <gtest/gtest.h>

#include <algorithm>

#include "cudamaster/llm/serialize.hpp"
#include "cudamaster/loop/screen.hpp"
#include "demo_support.hpp"

using namespace cmtest;

namespace {

json system_view(const json& request) {
  json v = request;
  for (json& m : v["messages"])
    if (m["role"] != "system") m["content"] = "";
  return v;
}

// The task a recorded request is about.
std::string task_of(const json& request) {
  const auto r = llm::chat_request_from_json(request);
  return r.ok() ? task_named_by(r.value()) : "";
}

// Each task's LLM calls of run 1, in order.
const std::vector<std::string> kTrace = {
    "spmv_csr/planner/r1/a0",    "spmv_csr/coder/r1/a0",    "spmv_csr/debug/r1/a1",   "spmv_csr/debug/r1/a2",
    "spmv_csr/planner/r2/a0",    "spmv_csr/coder/r2/a0",    "vector_add/planner/r1/a0", "vector_add/coder/r1/a0",
    "vector_add/planner/r2/a0",  "vector_add/coder/r2/a0",  "softmax/planner/r1/a0",  "softmax/coder/r1/a0",
    "softmax/debug/r1/a1",       "softmax/planner/r2/a0",   "softmax/coder/r2/a0",    "dot_product/planner/r1/a0",
    "dot_product/coder/r1/a0",   "dot_product/planner/r2/a0", "dot_product/coder/r2/a0", "dot_product/debug/r2/a1"};

struct Replayed {
  loop::OptimizeResult result;
  json outcomes;
  std::vector<std::string> trace;  // sorted by task as kTrace is: the jobs' order in the store
};

Replayed replay_suite(const TempDir& work, std::vector<std::string> tasks, int jobs, std::vector<std::string> gpus,
                      llm::ReplayMatch match = llm::ReplayMatch::Task) {
  DemoSuite suite(suite_dir());
  Demo::Builder builder(suite.demos());
  Demo::Evaluator evaluator(suite.demos());
  auto req = demo_request(suite.demos(), work.file(""));
  req.tasks = std::move(tasks);
  req.jobs = jobs;
  req.gpus = std::move(gpus);
  req.llm = "replay:" + suite_cassette();
  req.provider.replay_match = match;
  loop::Backends b;
  b.builder = &builder;
  b.evaluator = &evaluator;
  Replayed r{loop::run_optimize(req, b, {}), demo_outcomes(work.file("demo.db")), {}};
  auto s = store::RunStore::open(work.file("demo.db"));
  r.trace = call_trace(*s, 1);
  return r;
}

// Each task's calls in the order of kTrace's tasks, whatever order the jobs ran in.
std::vector<std::string> by_suite_order(const std::vector<std::string>& trace) {
  std::vector<std::string> out;
  for (const std::string task : {"spmv_csr/", "vector_add/", "softmax/", "dot_product/"})
    for (const std::string& c : trace)
      if (c.rfind(task, 0) == 0) out.push_back(c);
  return out;
}

void expect_the_story(const Replayed& r, const std::string& out_dir) {
  ASSERT_EQ(r.result.status, cudamaster::store::Status::finished);
  EXPECT_EQ(r.outcomes, DemoSuite(suite_dir()).expect());
  EXPECT_EQ(by_suite_order(r.trace), kTrace);
  // The best kernel of each task: the accepted candidate of its last accepting round.
  EXPECT_NE(read_file(out_dir + "/spmv_csr_fp32.cu").find("spmv_csr_vector4"), std::string::npos);
  EXPECT_NE(read_file(out_dir + "/vector_add_fp32.cu").find("vector_add_vec4("), std::string::npos);
  EXPECT_NE(read_file(out_dir + "/softmax_fp32.cu").find("softmax_warp_per_row"), std::string::npos);
  EXPECT_NE(read_file(out_dir + "/dot_product_fp32.cu").find("dot_product_grid"), std::string::npos);
  const json& suite = r.result.summary["suite"];
  EXPECT_EQ(suite["tasks"], 4);
  EXPECT_EQ(suite["correct"], 4);
  EXPECT_EQ(suite["success_rate"], 1.0);
  EXPECT_GT(suite["mean_p"].get<double>(), 1.2);
}

}  // namespace

TEST(SuiteDemo, ShippedCassetteMatchesTheLoopAndTheAnswers) {
  TempDir work;
  const std::string fresh = work.file("fresh.jsonl");
  (void)record_demo(suite_dir(), fresh, /*real_nvcc=*/false, work.file(""));
  const auto want = read_lines(suite_cassette());
  const auto got = read_lines(fresh);
  ASSERT_EQ(got.size(), want.size()) << "re-record with: cm_demo_cassette --real-nvcc --demo data/demo/suite4";
  ASSERT_EQ(got.size(), kTrace.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    const json g = json::parse(got[i]), w = json::parse(want[i]);
    EXPECT_EQ(system_view(g["request"]), system_view(w["request"]))
        << "exchange " << i << ": the prompts' system part changed; re-record with: cm_demo_cassette --real-nvcc --demo data/demo/suite4";
    EXPECT_EQ(task_of(w["request"]), kTrace[i].substr(0, kTrace[i].find('/'))) << "exchange " << i;
    EXPECT_EQ(task_of(g["request"]), task_of(w["request"])) << "exchange " << i;
    EXPECT_EQ(g["response"]["text"], w["response"]["text"]) << "exchange " << i;
  }
}

TEST(SuiteDemo, ReplaysEveryTasksStoryWithOneJob) {
  TempDir work;
  const Replayed r = replay_suite(work, {"spmv_csr", "vector_add", "softmax", "dot_product"}, 1, {});
  expect_the_story(r, work.file("out"));
  EXPECT_EQ(r.trace, kTrace);  // one job at a time: the cassette's own order
  EXPECT_EQ(r.result.summary["config"]["replay_match"], "task");
}

TEST(SuiteDemo, ReplaysEveryTasksStoryWithFourJobsOnFourGpus) {
  for (int run = 0; run < 3; ++run) {  // the interleaving differs from run to run
    SCOPED_TRACE("run " + std::to_string(run));
    TempDir work;
    const Replayed r = replay_suite(work, {"spmv_csr", "vector_add", "softmax", "dot_product"}, 4, {"0", "1", "2", "3"});
    expect_the_story(r, work.file("out"));
    EXPECT_EQ(r.result.summary["config"]["jobs"], 4);
  }
}

// The tasks in reverse order: no request comes in the cassette's order across tasks. Matching by
// task still replays every story; matching the system prompts alone hands one task's answers to
// another, and the stories break.
TEST(SuiteDemo, ReplaysInAnyTaskOrderOnlyWhenMatchingByTask) {
  {
    TempDir work;
    const Replayed r = replay_suite(work, {"dot_product", "softmax", "vector_add", "spmv_csr"}, 1, {});
    expect_the_story(r, work.file("out"));
  }
  TempDir work;
  const Replayed r = replay_suite(work, {"dot_product", "softmax", "vector_add", "spmv_csr"}, 1, {}, llm::ReplayMatch::SystemOnly);
  EXPECT_NE(r.outcomes, DemoSuite(suite_dir()).expect());
}

TEST(SuiteDemo, KernelsBehaveAsScriptedWithRealNvcc) {
  if (std::getenv("CM_SKIP_NVCC") != nullptr) GTEST_SKIP() << "CM_SKIP_NVCC is set";
  TempDir work;
  DemoSuite suite(suite_dir());
  loop::MskbBuilder nvcc(work.file("cache"));
  int kernels = 0;
  for (const Demo* d : suite.demos()) {
    const auto& spec = mskb::get_task(d->task());
    const auto entry = agents::make_task_brief(spec, mskb::parse_precision(d->script()["precision"]), false, "").entry;
    for (const json& a : d->script()["answers"]) {
      if (a["agent"] != "coder" && a["agent"] != "debug") continue;
      const std::string file = a["file"].get<std::string>();
      SCOPED_TRACE(d->task() + "/" + file);
      const auto code = agents::parse_code_answer(read_file(d->dir() + "/" + file), entry);
      ASSERT_TRUE(code.ok) << code.describe();
      const auto screen = cudamaster::loop::screen_source(code.code, {});
      EXPECT_TRUE(screen.ok);
      const std::string path = work.file(d->task() + "_" + file + ".cu");
      write_file(path, code.code);
      const mskb::CompileResult r = nvcc.build({path, {}, false});
      ++kernels;
      if (a.contains("build")) {
        ASSERT_FALSE(r.ok);
        ASSERT_FALSE(r.diagnostics.empty()) << r.log;
        EXPECT_EQ(r.diagnostics[0].message, a["build"]["error"].get<std::string>());
        EXPECT_EQ(r.diagnostics[0].line, a["build"]["line"].get<int>());
        EXPECT_FALSE(loop::toolchain_failure(r));  // a code error: the Debug agent's job
      } else {
        EXPECT_TRUE(r.ok) << r.log;
      }
    }
  }
  EXPECT_EQ(kernels, 12);
}
