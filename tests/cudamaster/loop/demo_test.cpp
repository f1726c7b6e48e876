// The shipped demos: each cassette must match what the loop records today from the demo's answers
// (same agents in the same order, same system prompts, parameters and answers), and replaying it
// must walk through its story. The README's demo (data/demo/matrix_vector_mul_fp32): a warp-per-row
// kernel that does not compile -> Debug -> accepted; then float4 loads, four in flight per lane,
// accepted. spmv_csr (data/demo/spmv_csr_fp32): compile error -> Debug -> wrong result -> Debug ->
// slower correct kernel rejected; then a faster kernel accepted. The task-file demo (data/demo/vadd:
// vector_add re-expressed as a task file) records and replays the same way, its task registered
// from its file.
#include <gtest/gtest.h>

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

// Replays `cassette` through the real loop with the demo's scripted builder and evaluator; the
// store is work/demo.db, the best kernels work/out.
loop::OptimizeResult replay_demo(const Demo& d, const std::string& cassette, const TempDir& work) {
  Demo::Builder builder(d);
  Demo::Evaluator evaluator(d);
  auto req = demo_request(d, work.file(""));
  req.llm = "replay:" + cassette;
  req.provider.replay_match = llm::ReplayMatch::SystemOnly;
  loop::Backends b;
  b.builder = &builder;
  b.evaluator = &evaluator;
  return loop::run_optimize(req, b, {});
}

// Re-records the one-task demo in `dir` (scripted builder) and compares it with its shipped cassette.
void expect_cassette_matches(const std::string& dir, const std::string& cassette, const std::string& rerecord) {
  TempDir work;
  const std::string fresh = work.file("fresh.jsonl");
  (void)record_demo(dir, fresh, /*real_nvcc=*/false, work.file(""));
  const auto want = read_lines(cassette);
  const auto got = read_lines(fresh);
  ASSERT_EQ(got.size(), want.size()) << "re-record with: " << rerecord;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const json g = json::parse(got[i]), w = json::parse(want[i]);
    EXPECT_EQ(system_view(g["request"]), system_view(w["request"]))
        << "exchange " << i << ": the prompts' system part changed; re-record with: " << rerecord;
    EXPECT_EQ(g["response"]["text"], w["response"]["text"]) << "exchange " << i;
  }
}

// Every coder and debug answer of the demo in `dir` passes the screen, and under the harness's real
// nvcc recipe fails with the scripted first diagnostic (error and line) or builds.
void expect_kernels_behave_with_real_nvcc(const std::string& dir) {
  TempDir work;
  Demo d(dir);
  loop::MskbBuilder nvcc(work.file("cache"));
  const auto& spec = mskb::get_task(d.task());
  const auto entry = agents::make_task_brief(spec, mskb::parse_precision(d.script()["precision"]), false, "").entry;
  for (const json& a : d.script()["answers"]) {
    if (a["agent"] != "coder" && a["agent"] != "debug") continue;
    SCOPED_TRACE(a["file"].get<std::string>());
    const auto code = agents::parse_code_answer(read_file(dir + "/" + a["file"].get<std::string>()), entry);
    ASSERT_TRUE(code.ok) << code.describe();
    EXPECT_TRUE(cudamaster::loop::screen_source(code.code, {}).ok);
    const std::string path = work.file(a["file"].get<std::string>() + ".cu");
    write_file(path, code.code);
    const mskb::CompileResult r = nvcc.build({path, {}, false});
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
}  // namespace

TEST(Demo, ShippedCassetteMatchesTheLoopAndTheAnswers) {
  expect_cassette_matches(demo_dir(), demo_cassette(), "cm_demo_cassette --real-nvcc");
}

TEST(Demo, ShippedCassetteReplaysTheStory) {
  TempDir work;
  Demo d(demo_dir());
  const auto res = replay_demo(d, demo_cassette(), work);
  ASSERT_EQ(res.status, cudamaster::store::Status::finished);
  EXPECT_EQ(demo_outcome(work.file("demo.db")), d.script()["expect"]);
  auto s = store::RunStore::open(work.file("demo.db"));
  EXPECT_EQ(call_trace(*s, 1), (std::vector<std::string>{"spmv_csr/planner/r1/a0", "spmv_csr/coder/r1/a0", "spmv_csr/debug/r1/a1",
                                                         "spmv_csr/debug/r1/a2", "spmv_csr/planner/r2/a0", "spmv_csr/coder/r2/a0"}));
  const std::string best = read_file(work.file("out") + "/spmv_csr_fp32.cu");
  EXPECT_NE(best.find("spmv_csr_vector4"), std::string::npos);
  EXPECT_GT(res.summary["suite"]["mean_p"].get<double>(), 1.5);
  // The ablations replay too: no profile, the same agents.
  EXPECT_EQ(res.summary["config"]["loop"]["profile"], "none");
}

// The task-file demos' cassettes (vector_add re-expressed as data/demo/vadd, and the three
// examples/) are what the loop records today, and replaying one optimizes the task of its file:
// one round, the coder's kernel accepted and written under the file's entry point.
class TaskFileDemo : public ::testing::TestWithParam<const char*> {};

TEST_P(TaskFileDemo, CassetteMatchesAndReplays) {
  const std::string name = GetParam();
  const std::string dir = std::string(MSKB_SOURCE_ROOT) + "/data/demo/" + name;
  const std::string cassette = dir + ".jsonl";
  TempDir work, rec;
  const std::string fresh = work.file("fresh.jsonl");
  (void)record_demo(dir, fresh, /*real_nvcc=*/false, rec.file(""));
  const auto want = read_lines(cassette);
  const auto got = read_lines(fresh);
  ASSERT_EQ(got.size(), want.size()) << "re-record with: cm_demo_cassette --real-nvcc --demo data/demo/" << name;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const json g = json::parse(got[i]), w = json::parse(want[i]);
    EXPECT_EQ(system_view(g["request"]), system_view(w["request"])) << "exchange " << i;
    EXPECT_EQ(g["response"]["text"], w["response"]["text"]) << "exchange " << i;
  }

  Demo d(dir);
  ASSERT_FALSE(d.task_file().empty());
  ASSERT_EQ(demo_request(d, work.file("")).config.task_files, std::vector<std::string>{d.task_file()});
  const auto res = replay_demo(d, cassette, work);
  ASSERT_EQ(res.status, cudamaster::store::Status::finished);
  EXPECT_EQ(demo_outcome(work.file("demo.db")), d.script()["expect"]);
  auto s = store::RunStore::open(work.file("demo.db"));
  EXPECT_EQ(call_trace(*s, 1), (std::vector<std::string>{name + "/planner/r1/a0", name + "/coder/r1/a0"}));
  const std::string best = read_file(work.file("out") + "/" + name + "_fp32.cu");
  EXPECT_NE(best.find("extern \"C\" void " + name + "("), std::string::npos) << best;
  const auto entry = agents::make_task_brief(mskb::get_task(name), mskb::Precision::fp32, false, "").entry;
  const agents::CodeAnswer code = agents::parse_code_answer(read_file(dir + "/coder_1.md"), entry);
  ASSERT_TRUE(code.ok) << code.describe();
  EXPECT_NE(best.find(code.code), std::string::npos) << "the best kernel is the coder's answer";
}

INSTANTIATE_TEST_SUITE_P(Demos, TaskFileDemo, ::testing::Values("vadd", "histogram", "bias_gelu", "conv1d"));

TEST(Demo, KernelsBehaveAsScriptedWithRealNvcc) {
  if (std::getenv("CM_SKIP_NVCC") != nullptr) GTEST_SKIP() << "CM_SKIP_NVCC is set";
  expect_kernels_behave_with_real_nvcc(demo_dir());
}

// The README's demo: matrix_vector_mul FP32, whose naive baseline (one thread per row, 16 blocks at
// M = 2048, uncoalesced loads) leaves a gain far beyond the run-to-run spread at the sizes that
// dominate P.
TEST(GemvDemo, ShippedCassetteMatchesTheLoopAndTheAnswers) {
  expect_cassette_matches(gemv_dir(), gemv_cassette(), "cm_demo_cassette --real-nvcc --demo data/demo/matrix_vector_mul_fp32");
}

TEST(GemvDemo, ShippedCassetteReplaysTheStory) {
  TempDir work;
  Demo d(gemv_dir());
  const auto res = replay_demo(d, gemv_cassette(), work);
  ASSERT_EQ(res.status, cudamaster::store::Status::finished);
  EXPECT_EQ(demo_outcome(work.file("demo.db")), d.script()["expect"]);
  auto s = store::RunStore::open(work.file("demo.db"));
  EXPECT_EQ(call_trace(*s, 1), (std::vector<std::string>{"matrix_vector_mul/planner/r1/a0", "matrix_vector_mul/coder/r1/a0",
                                                         "matrix_vector_mul/debug/r1/a1", "matrix_vector_mul/planner/r2/a0",
                                                         "matrix_vector_mul/coder/r2/a0"}));
  const std::string best = read_file(work.file("out") + "/matrix_vector_mul_fp32.cu");
  EXPECT_NE(best.find("gemv_warp_per_row_vec"), std::string::npos);
  const auto entry = agents::make_task_brief(mskb::get_task("matrix_vector_mul"), mskb::Precision::fp32, false, "").entry;
  const agents::CodeAnswer code = agents::parse_code_answer(read_file(gemv_dir() + "/coder_2.md"), entry);
  ASSERT_TRUE(code.ok) << code.describe();
  EXPECT_NE(best.find(code.code), std::string::npos) << "the best kernel is round 2's answer";
  EXPECT_GT(res.summary["suite"]["mean_p"].get<double>(), 10.0);
}

TEST(GemvDemo, KernelsBehaveAsScriptedWithRealNvcc) {
  if (std::getenv("CM_SKIP_NVCC") != nullptr) GTEST_SKIP() << "CM_SKIP_NVCC is set";
  expect_kernels_behave_with_real_nvcc(gemv_dir());
}
