// The whole loop in-process: scripted LLM (recorded to a cassette) then the replay provider,
// with the builder, evaluator and profiler faked. Debug and Compiler paths, the screen, the
// acceptance rule, budget and patience stops, --no-planner, --jobs with one GPU lane, and resume
// after an interruption at every step with nothing lost or repeated.
#include <map>
#include <set>
#include <gtest/gtest.h>

#include "support/agent_doubles.hpp"

using namespace cmtest;
using agents::Agent;

namespace {

std::vector<json> rounds_of(store::RunStore& s, std::int64_t run) {
  std::vector<json> out;
  for (const auto& j : s.jobs(run))
    for (const auto& r : s.rows("rounds", j.id)) out.push_back(r);
  return out;
}

// Takes from `p` the answers a first session already used (per call_trace), so that a resumed
// session's provider holds only what is left.
void consume(ScriptedProvider& p, const std::vector<std::string>& used) {
  for (const std::string& c : used) {
    llm::ChatRequest r;
    r.messages = {{llm::Role::System, c.find("/planner/") != std::string::npos ? "You are the Planner"
                                      : c.find("/coder/") != std::string::npos ? "You are the Coder"
                                      : c.find("/compiler/") != std::string::npos ? "You are the Compiler agent"
                                                                                  : "You are the Debug agent"}};
    ASSERT_TRUE(p.complete(r).ok());
  }
  p.requests.clear();
}

}  // namespace

TEST(Loop, StoryRecordsEveryStepAndKeepsTheBest) {
  InProcess t;
  auto provider = std::make_unique<ScriptedProvider>();
  script_story(*provider);
  const std::string cassette = t.dir.file("story.jsonl");
  const auto res = t.run(t.request(), std::move(provider), nullptr, cassette);
  EXPECT_EQ(res.status, cudamaster::store::Status::finished) << t.log();

  auto s = store::RunStore::open(t.dir.file("runs.db"));
  const auto trace = call_trace(*s, res.run_id);
  EXPECT_EQ(trace, (std::vector<std::string>{"spmv_csr/planner/r1/a0", "spmv_csr/coder/r1/a0", "spmv_csr/debug/r1/a1",
                                             "spmv_csr/debug/r1/a2", "spmv_csr/planner/r2/a0", "spmv_csr/coder/r2/a0"}));
  const auto rounds = rounds_of(*s, res.run_id);
  ASSERT_EQ(rounds.size(), 2u);
  EXPECT_EQ(rounds[0]["outcome"], "rejected");
  EXPECT_EQ(rounds[0]["attempts"], 2);
  EXPECT_NEAR(rounds[0]["p"].get<double>(), 0.3, 1e-9);
  EXPECT_EQ(rounds[1]["outcome"], "accepted");
  EXPECT_NEAR(rounds[1]["best_p_after"].get<double>(), 2.5, 1e-9);
  const auto steps = rounds[0]["payload"]["steps"];
  EXPECT_NE(steps[1].get<std::string>().find("coder: compile_error"), std::string::npos) << steps.dump();
  EXPECT_NE(steps[2].get<std::string>().find("debug 1: wrong_result"), std::string::npos) << steps.dump();
  // The margin is the spread model's between-process spread of P over the candidate's paper shapes.
  EXPECT_NE(steps[3].get<std::string>().find("debug 2: correct, P 0.300 <= "), std::string::npos) << steps.dump();
  EXPECT_NE(steps[3].get<std::string>().find("margin: between-process spread of its 6 shapes, spread model v"), std::string::npos) << steps.dump();
  const auto verdict = rounds[0]["payload"]["verdict"];
  EXPECT_EQ(verdict["accept"], false);
  EXPECT_GT(verdict["margin"].get<double>(), 0.0);
  EXPECT_NEAR(verdict["required_p"].get<double>(), 1.0 + verdict["margin"].get<double>(), 1e-12);  // the best is the baseline
  EXPECT_NE(verdict["margin_source"].get<std::string>().find("between-process spread of its 6 shapes"), std::string::npos);

  const auto job = s->jobs(res.run_id).at(0);
  EXPECT_EQ(job.status, cudamaster::store::Status::finished);
  EXPECT_EQ(job.stop_reason, "rounds");
  // Baseline + vendor + 4 candidates; 6 builds (1 failed); baseline, vendor, 3 candidate evaluations
  // and the accepted one's gate (memcheck, racecheck, the baseline and it re-measured); 2 profiles.
  EXPECT_EQ(s->rows("candidates", job.id).size(), 6u);
  EXPECT_EQ(s->rows("builds", job.id).size(), 6u);
  const auto evals = s->rows("evaluations", job.id);
  ASSERT_EQ(evals.size(), 9u);
  EXPECT_EQ(evals[0]["contender"], "baseline");
  EXPECT_EQ(evals[1]["contender"], "vendor");
  EXPECT_EQ(evals[2]["disposition"], "wrong_result");
  std::vector<std::string> gate;
  for (std::size_t i = 5; i < evals.size(); ++i) gate.push_back(evals[i]["contender"].get<std::string>() + " " + evals[i]["disposition"].get<std::string>());
  EXPECT_EQ(gate, (std::vector<std::string>{"candidate/memcheck passed", "candidate/racecheck passed", "baseline/remeasure passed",
                                            "candidate/remeasure passed"}));
  EXPECT_NE(evals[5]["message"].get<std::string>().find(loop::kSanitizerShapes), std::string::npos) << evals[5].dump();
  EXPECT_EQ(s->rows("profiles", job.id).size(), 2u);
  EXPECT_FALSE(s->rows("eval_shapes", job.id).empty());
  // Every agent call stored with prompt, answer and tokens.
  for (const auto& c : s->rows("llm_calls", job.id)) {
    EXPECT_EQ(c["request"]["messages"].size(), 2u);
    EXPECT_FALSE(c["response"].get<std::string>().empty());
    EXPECT_GT(c["input_tokens"].get<std::int64_t>(), 100);
  }
  // The Debug agent saw the compile error, then the harness's failure report.
  const auto calls = s->rows("llm_calls", job.id);
  const std::string debug1 = calls[2]["request"]["messages"][1]["content"];
  EXPECT_NE(debug1.find("identifier \"__shfl_down\" is undefined"), std::string::npos);
  EXPECT_NE(debug1.find("# What went wrong (compile error)"), std::string::npos);
  const std::string debug2 = calls[3]["request"]["messages"][1]["content"];
  EXPECT_NE(debug2.find("Disposition: wrong_result"), std::string::npos) << debug2;
  EXPECT_NE(debug2.find("First mismatches (index: got vs expected): 0: 0.5 vs 3.75;"), std::string::npos) << debug2;
  // The round-2 Planner saw round 1's history and the profile.
  const std::string planner2 = calls[4]["request"]["messages"][1]["content"];
  EXPECT_NE(planner2.find("- Round 1: rejected"), std::string::npos);
  EXPECT_NE(planner2.find("Bottleneck: memory-latency"), std::string::npos);

  // The best kernel and the summary.
  const std::string best = read_file(t.dir.file("out") + "/spmv_csr_fp32.cu");
  EXPECT_NE(best.find("fake-eval: speed=2.5"), std::string::npos);
  const json& suite = res.summary["suite"];
  EXPECT_EQ(suite["tasks"], 1);
  EXPECT_EQ(suite["correct"], 1);
  EXPECT_DOUBLE_EQ(suite["success_rate"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(suite["fast_2"].get<double>(), 1.0);
  EXPECT_NEAR(suite["mean_p"].get<double>(), 2.5, 1e-9);
  EXPECT_NEAR(suite["mean_vs_vendor"].get<double>(), 2.5 / 1.5, 1e-9);
  EXPECT_EQ(res.summary["agents"].size(), 3u);  // coder, debug, planner
  EXPECT_TRUE(std::filesystem::exists(t.dir.file("out") + "/summary.json"));
  EXPECT_NE(t.log().find("round  outcome"), std::string::npos) << t.log();
  EXPECT_EQ(read_lines(cassette).size(), 6u);
}

TEST(Loop, ReplayOnAnotherGpuRepeatsTheRun) {
  InProcess rec;
  auto provider = std::make_unique<ScriptedProvider>();
  script_story(*provider);
  const std::string cassette = rec.dir.file("story.jsonl");
  ASSERT_EQ(rec.run(rec.request(), std::move(provider), nullptr, cassette).status, cudamaster::store::Status::finished);

  // Replay with different timings (a different GPU): prompts differ, system prompts do not.
  InProcess t;
  t.evaluator.jitter = 1.13;
  auto req = t.request("replay:" + cassette);
  req.provider.replay_match = llm::ReplayMatch::SystemOnly;
  const auto res = t.run_llm(req);
  ASSERT_EQ(res.status, cudamaster::store::Status::finished) << t.log();
  auto s = store::RunStore::open(t.dir.file("runs.db"));
  EXPECT_EQ(call_trace(*s, res.run_id).size(), 6u);
  for (const auto& c : s->rows("llm_calls", s->jobs(res.run_id)[0].id)) EXPECT_EQ(c["replayed"], 1);
  EXPECT_NEAR(res.summary["suite"]["mean_p"].get<double>(), 2.5, 1e-9);

  // Strict replay of the same cassette with other measurements fails with a mismatch and stops.
  InProcess strict;
  strict.evaluator.jitter = 1.13;
  auto sreq = strict.request("replay:" + cassette);
  sreq.provider.replay_match = llm::ReplayMatch::Full;
  const auto sres = strict.run_llm(sreq);
  EXPECT_EQ(sres.status, cudamaster::store::Status::stopped);
  EXPECT_EQ(sres.summary["tasks"][0]["stop_reason"], "llm_error");
  EXPECT_NE(sres.summary["tasks"][0]["message"].get<std::string>().find("replay_mismatch"), std::string::npos);
}

TEST(Loop, ToolchainFailureGoesToTheCompilerAgent) {
  InProcess t;
  auto p = std::make_unique<ScriptedProvider>();
  p->add(Agent::planner, plan_answer("wgmma"));
  p->add(Agent::coder, code_answer(spmv_kernel("// fake-build: needs-90a\n// fake-eval: speed=3\n")));
  p->add(Agent::compiler, "```json\n{\"arch\": \"90a\", \"flags\": [], \"lineinfo\": false, \"code_problem\": false, \"reason\": \"wgmma\"}\n```");
  auto req = t.request();
  req.config.rounds = 1;
  const auto res = t.run(req, std::move(p));
  ASSERT_EQ(res.status, cudamaster::store::Status::finished) << t.log();
  auto s = store::RunStore::open(t.dir.file("runs.db"));
  const auto job = s->jobs(res.run_id)[0];
  const auto builds = s->rows("builds", job.id);
  ASSERT_EQ(builds.size(), 4u);  // baseline, vendor, candidate (sm_90), candidate again (sm_90a)
  EXPECT_EQ(builds[2]["ok"], 0);
  EXPECT_EQ(builds[3]["ok"], 1);
  EXPECT_EQ(builds[3]["arch"], "90a");
  EXPECT_EQ(rounds_of(*s, res.run_id)[0]["outcome"], "accepted");
  EXPECT_EQ(call_trace(*s, res.run_id).back(), "spmv_csr/compiler/r1/a1");
}

TEST(Loop, ScreenRejectionAndUnusableAnswersGoToDebug) {
  InProcess t;
  auto p = std::make_unique<ScriptedProvider>();
  p->add(Agent::planner, plan_answer("streams"));
  p->add(Agent::coder, truncated("Here:\n```cuda\n#include <cuda_runtime.h>\n__global__ void k(float* y) {\n  y[0] ="));
  p->add(Agent::debug, code_answer(spmv_kernel("// fake-eval: speed=2\n") + "void helper() { cudaStream_t s; cudaStreamCreate(&s); }\n"));
  p->add(Agent::debug, code_answer(spmv_kernel("// fake-eval: speed=2\n")));
  auto req = t.request();
  req.config.rounds = 1;
  const auto res = t.run(req, std::move(p));
  ASSERT_EQ(res.status, cudamaster::store::Status::finished) << t.log();
  auto s = store::RunStore::open(t.dir.file("runs.db"));
  const auto job = s->jobs(res.run_id)[0];
  const auto evals = s->rows("evaluations", job.id);
  ASSERT_EQ(evals.size(), 8u);  // baseline, vendor, rejected_static, passed + its acceptance gate (memcheck, racecheck, 2 re-measurements)
  EXPECT_EQ(evals[2]["disposition"], "rejected_static");
  EXPECT_NE(evals[2]["message"].get<std::string>().find("(extra_stream)"), std::string::npos);
  const auto calls = s->rows("llm_calls", job.id);
  const std::string d1 = calls[2]["request"]["messages"][1]["content"];
  EXPECT_NE(d1.find("# What went wrong (unusable answer)"), std::string::npos);
  EXPECT_NE(d1.find("the model stopped at its token limit"), std::string::npos) << d1;
  const std::string d2 = calls[3]["request"]["messages"][1]["content"];
  EXPECT_NE(d2.find("# What went wrong (integrity screen)"), std::string::npos);
  EXPECT_NE(d2.find("creates a stream"), std::string::npos);
  EXPECT_EQ(rounds_of(*s, res.run_id)[0]["outcome"], "accepted");
}

// Issue 15 item 2: the binary policy reads the built object, so a candidate the text screen lets
// through (the stream call is hidden by token pasting) is refused at build time: recorded as an
// evaluation with disposition rejected_static naming the symbol, and the Debug agent sees it.
TEST(Loop, BinaryPolicyRefusalIsRejectedStaticAndGoesToDebug) {
  InProcess t;
  auto p = std::make_unique<ScriptedProvider>();
  p->add(Agent::planner, plan_answer("streams"));
  p->add(Agent::coder, code_answer(spmv_kernel("// fake-build: policy-refuses\n// fake-eval: speed=2\n")));
  p->add(Agent::debug, code_answer(spmv_kernel("// fake-eval: speed=2\n")));
  auto req = t.request();
  req.config.rounds = 1;
  const auto res = t.run(req, std::move(p));
  ASSERT_EQ(res.status, cudamaster::store::Status::finished) << t.log();
  auto s = store::RunStore::open(t.dir.file("runs.db"));
  const auto job = s->jobs(res.run_id)[0];
  const auto builds = s->rows("builds", job.id);
  ASSERT_GE(builds.size(), 3u);
  EXPECT_EQ(builds[2]["ok"], 0);
  const auto evals = s->rows("evaluations", job.id);
  ASSERT_GE(evals.size(), 3u);
  EXPECT_EQ(evals[2]["disposition"], "rejected_static");
  EXPECT_NE(evals[2]["message"].get<std::string>().find("imports cudaStreamCreate"), std::string::npos) << evals[2]["message"];
  const auto calls = s->rows("llm_calls", job.id);
  const std::string d1 = calls[2]["request"]["messages"][1]["content"];
  EXPECT_NE(d1.find("binary policy refused"), std::string::npos) << d1;
  EXPECT_NE(d1.find("imports cudaStreamCreate: creates a stream"), std::string::npos) << d1;
  EXPECT_EQ(rounds_of(*s, res.run_id)[0]["outcome"], "accepted");
}

// Issue 15 item 7: a candidate becomes the best only after compute-sanitizer memcheck and racecheck
// pass on it; a sanitizer failure is an evaluation with disposition sanitizer_error, the candidate
// is not accepted, and the Debug agent sees the sanitizer's first line as the problem.
TEST(Loop, SanitizerFailureIsNotAcceptedAndGoesToDebug) {
  InProcess t;
  auto p = std::make_unique<ScriptedProvider>();
  p->add(Agent::planner, plan_answer("x"));
  p->add(Agent::coder, code_answer(spmv_kernel("// fake-eval: speed=2.5\n// fake-sanitizer: memcheck Invalid __global__ write of size 4 bytes\n")));
  p->add(Agent::debug, code_answer(spmv_kernel("// fake-eval: speed=2.2\n// fake-sanitizer: racecheck Race reported between Write access and Read access\n")));
  p->add(Agent::debug, code_answer(spmv_kernel("// fake-eval: speed=2.0\n")));
  auto req = t.request();
  req.config.rounds = 1;
  const auto res = t.run(req, std::move(p));
  ASSERT_EQ(res.status, cudamaster::store::Status::finished) << t.log();
  auto s = store::RunStore::open(t.dir.file("runs.db"));
  const auto job = s->jobs(res.run_id).at(0);
  std::vector<std::string> evals;
  for (const auto& e : s->rows("evaluations", job.id)) evals.push_back(e["contender"].get<std::string>() + " " + e["disposition"].get<std::string>());
  EXPECT_EQ(evals, (std::vector<std::string>{"baseline passed", "vendor passed",
                                             "candidate passed", "candidate/memcheck sanitizer_error",  // stops at memcheck
                                             "candidate passed", "candidate/memcheck passed", "candidate/racecheck sanitizer_error",
                                             "candidate passed", "candidate/memcheck passed", "candidate/racecheck passed",
                                             "baseline/remeasure passed", "candidate/remeasure passed"}));
  const auto rows = s->rows("evaluations", job.id);
  const std::string msg = rows[3]["message"];
  EXPECT_NE(msg.find("sanitizer_error: Invalid __global__ write of size 4 bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("compute-sanitizer memcheck on the two smallest paper shapes and the smallest held-out shape, two seeds each"),
            std::string::npos) << msg;
  EXPECT_EQ(rows[3]["payload"]["sanitizer_shapes"], loop::kSanitizerShapes);
  EXPECT_EQ(rows[3]["payload"]["shapes"].size(), 3u);

  const auto calls = s->rows("llm_calls", job.id);
  ASSERT_EQ(calls.size(), 4u);
  const std::string d1 = calls[2]["request"]["messages"][1]["content"];
  EXPECT_NE(d1.find("Disposition: sanitizer_error"), std::string::npos) << d1;
  EXPECT_NE(d1.find("Invalid __global__ write of size 4 bytes"), std::string::npos) << d1;
  EXPECT_NE(d1.find("compute-sanitizer memcheck"), std::string::npos) << d1;
  const std::string d2 = calls[3]["request"]["messages"][1]["content"];
  EXPECT_NE(d2.find("Race reported between Write access and Read access"), std::string::npos) << d2;
  EXPECT_NE(d2.find("compute-sanitizer racecheck"), std::string::npos) << d2;

  const auto rounds = rounds_of(*s, res.run_id);
  ASSERT_EQ(rounds.size(), 1u);
  EXPECT_EQ(rounds[0]["outcome"], "accepted");
  EXPECT_NEAR(rounds[0]["best_p_after"].get<double>(), 2.0, 1e-9);  // neither sanitizer failure became the best
  const auto steps = rounds[0]["payload"]["steps"].dump();
  EXPECT_NE(steps.find("coder: memcheck: sanitizer_error: Invalid __global__ write"), std::string::npos) << steps;
  EXPECT_NE(steps.find("debug 1: racecheck: sanitizer_error: Race reported"), std::string::npos) << steps;
  EXPECT_NE(read_file(t.dir.file("out") + "/spmv_csr_fp32.cu").find("speed=2.0"), std::string::npos);
  EXPECT_FALSE(res.summary["tasks"][0]["p"].is_null());
  EXPECT_NEAR(res.summary["tasks"][0]["p"].get<double>(), 2.0, 1e-9);
}

// --no-sanitize: no sanitizer runs (the re-measurement still does).
TEST(Loop, NoSanitizeSkipsTheSanitizerGate) {
  InProcess t;
  auto p = std::make_unique<ScriptedProvider>();
  p->add(Agent::planner, plan_answer("x"));
  p->add(Agent::coder, code_answer(spmv_kernel("// fake-eval: speed=2.5\n// fake-sanitizer: memcheck Invalid __global__ write of size 4 bytes\n")));
  auto req = t.request();
  req.config.rounds = 1;
  req.config.sanitize = false;
  const auto res = t.run(req, std::move(p));
  ASSERT_EQ(res.status, cudamaster::store::Status::finished) << t.log();
  EXPECT_EQ(t.evaluator.modes, (std::vector<std::string>{"baseline/full", "vendor/full", "candidate/full", "baseline/remeasure",
                                                         "candidate/remeasure"}));
  auto s = store::RunStore::open(t.dir.file("runs.db"));
  EXPECT_EQ(rounds_of(*s, res.run_id).at(0)["outcome"], "accepted");
  EXPECT_EQ(s->run(res.run_id)->config["loop"]["sanitize"], false);
}

// Issue 15 item 8: before a candidate becomes the best it is re-measured in a fresh process beside
// the re-measured baseline; that P is the accepted one, and a re-measured P that no longer beats
// the best by more than the noise is not accepted.
TEST(Loop, RemeasurementDecidesAcceptanceAndItsP) {
  InProcess t;
  auto p = std::make_unique<ScriptedProvider>();
  p->add(Agent::planner, plan_answer("x"));
  p->add(Agent::coder, code_answer(spmv_kernel("// fake-eval: speed=2.5\n// fake-eval: remeasure_speed=1.0\n")));
  p->add(Agent::planner, plan_answer("y"));
  p->add(Agent::coder, code_answer(spmv_kernel("// fake-eval: speed=2.5\n// fake-eval: remeasure_speed=1.8\n")));
  const auto res = t.run(t.request(), std::move(p));
  ASSERT_EQ(res.status, cudamaster::store::Status::finished) << t.log();
  EXPECT_EQ(t.evaluator.modes,
            (std::vector<std::string>{"baseline/full", "vendor/full", "candidate/full", "candidate/memcheck", "candidate/racecheck",
                                      "baseline/remeasure", "candidate/remeasure", "candidate/full", "candidate/memcheck",
                                      "candidate/racecheck", "baseline/remeasure", "candidate/remeasure"}));
  auto s = store::RunStore::open(t.dir.file("runs.db"));
  const auto job = s->jobs(res.run_id).at(0);
  const auto rows = s->rows("evaluations", job.id);
  ASSERT_EQ(rows.size(), 12u);
  EXPECT_EQ(rows[6]["contender"], "candidate/remeasure");
  EXPECT_NEAR(rows[6]["p"].get<double>(), 1.0, 1e-9);
  EXPECT_NE(rows[6]["message"].get<std::string>().find("no longer beats the best by more than the margin: not accepted"), std::string::npos)
      << rows[6].dump();
  // The re-measurement's row records the verdict: the margin used and where it came from.
  const auto verdict = rows[6]["payload"]["verdict"];
  EXPECT_EQ(verdict["accept"], false) << rows[6].dump();
  EXPECT_NE(verdict["margin_source"].get<std::string>().find("between-process spread of its"), std::string::npos) << rows[6].dump();
  EXPECT_NEAR(verdict["required_p"].get<double>(), 1.0 + verdict["margin"].get<double>(), 1e-12);  // the best is the baseline, P 1

  EXPECT_EQ(rows[5]["contender"], "baseline/remeasure");
  EXPECT_EQ(rows[5]["candidate_id"], rows[0]["candidate_id"]);  // the baseline's own candidate row

  const auto rounds = rounds_of(*s, res.run_id);
  ASSERT_EQ(rounds.size(), 2u);
  EXPECT_EQ(rounds[0]["outcome"], "rejected");
  EXPECT_NEAR(rounds[0]["best_p_after"].get<double>(), 1.0, 1e-9);
  const std::string why = rounds[0]["payload"]["outcome"];
  EXPECT_NE(why.find("P 2.50 at first, but re-measured beside the baseline in a fresh process P 1.000 <= "), std::string::npos)
      << why;
  // Round 2: accepted with the re-measured P (1.8), not the first one (2.5).
  EXPECT_EQ(rounds[1]["outcome"], "accepted");
  EXPECT_NEAR(rounds[1]["best_p_after"].get<double>(), 1.8, 1e-9);
  EXPECT_NEAR(rounds[1]["p"].get<double>(), 1.8, 1e-9);
  EXPECT_NEAR(res.summary["tasks"][0]["p"].get<double>(), 1.8, 1e-9);
}

TEST(Loop, HeldOutFailuresAreNotDisclosed) {
  InProcess t;
  auto p = std::make_unique<ScriptedProvider>();
  p->add(Agent::planner, plan_answer("x"));
  p->add(Agent::coder, code_answer(spmv_kernel("// fake-eval: heldout_wrong\n")));
  p->add(Agent::debug, code_answer(spmv_kernel("// fake-eval: speed=1.5\n")));
  auto req = t.request();
  req.config.rounds = 1;
  ASSERT_EQ(t.run(req, std::move(p)).status, cudamaster::store::Status::finished) << t.log();
  auto s = store::RunStore::open(t.dir.file("runs.db"));
  const auto calls = s->rows("llm_calls", s->jobs(1)[0].id);
  const std::string d = calls[2]["request"]["messages"][1]["content"];
  EXPECT_NE(d.find("a held-out correctness input (its size and seed are not disclosed"), std::string::npos) << d;
  for (const mskb::Shape& sh : mskb::get_task("spmv_csr").heldout) EXPECT_EQ(d.find(sh.str()), std::string::npos) << sh.str();
  EXPECT_EQ(d.find("index"), std::string::npos);
}

TEST(Loop, FailedRoundAfterDebugLoopsAndPatience) {
  InProcess t;
  auto p = std::make_unique<ScriptedProvider>();
  for (int r = 0; r < 5; ++r) p->add(Agent::planner, plan_answer("x"));
  for (int r = 0; r < 5; ++r) p->add(Agent::coder, code_answer(spmv_kernel("// fake-eval: crash\n")));
  for (int r = 0; r < 10; ++r) p->add(Agent::debug, code_answer(spmv_kernel("// fake-eval: speed=0.5\n")));
  auto req = t.request();
  req.config.rounds = 5;
  req.config.patience = 2;
  req.config.debug_loops = 1;
  const auto res = t.run(req, std::move(p));
  EXPECT_EQ(res.status, cudamaster::store::Status::finished);
  auto s = store::RunStore::open(t.dir.file("runs.db"));
  const auto job = s->jobs(res.run_id)[0];
  EXPECT_EQ(job.stop_reason, "patience");
  const auto rounds = rounds_of(*s, res.run_id);
  ASSERT_EQ(rounds.size(), 2u);
  EXPECT_EQ(rounds[0]["outcome"], "rejected");  // crash -> debug 1 -> correct but slower
  EXPECT_EQ(call_trace(*s, res.run_id).size(), 6u);
  // No correct candidate beat the baseline: the best is the baseline, written as such.
  EXPECT_EQ(job.result["best"]["origin"], "baseline");
  EXPECT_NEAR(res.summary["suite"]["mean_p"].get<double>(), 0.5, 1e-9);
  EXPECT_DOUBLE_EQ(res.summary["suite"]["success_rate"].get<double>(), 0.0);
}

TEST(Loop, FixAttemptsAreBoundedByDebugLoops) {
  InProcess t;
  auto p = std::make_unique<ScriptedProvider>();
  p->add(Agent::planner, plan_answer("x"));
  p->add(Agent::coder, code_answer(spmv_kernel("// fake-eval: wrong_result\n")));
  for (int i = 0; i < 5; ++i) p->add(Agent::debug, code_answer(spmv_kernel("// fake-eval: wrong_result\n")));
  auto req = t.request();
  req.config.rounds = 1;
  req.config.debug_loops = 3;
  const auto res = t.run(req, std::move(p));
  auto s = store::RunStore::open(t.dir.file("runs.db"));
  EXPECT_EQ(call_trace(*s, res.run_id).size(), 5u);  // planner, coder, 3 x debug
  const auto r = rounds_of(*s, res.run_id);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0]["outcome"], "failed");
  EXPECT_EQ(r[0]["attempts"], 3);
  EXPECT_EQ(res.summary["tasks"][0]["p"], nullptr);
  EXPECT_EQ(res.summary["suite"]["correct"], 0);
}

TEST(Loop, NoPlannerAblation) {
  InProcess t;
  auto p = std::make_unique<ScriptedProvider>();
  script_story(*p, /*with_planner=*/false);
  auto req = t.request();
  req.config.planner = false;
  req.config.profile = cudamaster::profile::RenderMode::none;
  const auto res = t.run(req, std::move(p));
  ASSERT_EQ(res.status, cudamaster::store::Status::finished) << t.log();
  auto s = store::RunStore::open(t.dir.file("runs.db"));
  for (const auto& c : call_trace(*s, res.run_id)) EXPECT_EQ(c.find("planner"), std::string::npos);
  EXPECT_EQ(t.profiler.calls.load(), 0);
  const auto calls = s->rows("llm_calls", s->jobs(res.run_id)[0].id);
  const std::string coder = calls[0]["request"]["messages"][1]["content"];
  EXPECT_NE(coder.find("no Planner in this run"), std::string::npos);
  EXPECT_NE(coder.find("| rows=1024,cols=2048 |"), std::string::npos);
  EXPECT_EQ(s->run(res.run_id)->config["loop"]["planner"], false);
  EXPECT_EQ(s->run(res.run_id)->config["loop"]["profile"], "none");
}

TEST(Loop, BudgetStopsTheRunAndResumeContinuesIt) {
  InProcess t;
  // openai:gpt-4o is priced: each scripted call costs about a cent here.
  auto make = [] {
    auto p = std::make_unique<ScriptedProvider>("openai", "gpt-4o");
    script_story(*p);
    return p;
  };
  auto req = t.request();
  req.config.budget_usd = 0.004;
  const auto res = t.run(req, make(), std::make_shared<llm::Budget>(0.004));
  EXPECT_EQ(res.status, cudamaster::store::Status::stopped);
  auto s = store::RunStore::open(t.dir.file("runs.db"));
  const auto job = s->jobs(res.run_id)[0];
  EXPECT_EQ(job.status, cudamaster::store::Status::stopped);
  EXPECT_EQ(job.stop_reason, "budget");
  const auto before = call_trace(*s, res.run_id);
  EXPECT_LT(before.size(), 6u);
  EXPECT_GE(before.size(), 1u);
  EXPECT_GT(s->run_cost(res.run_id), 0.004);  // the call in flight may overshoot, then nothing more

  // Resume with a larger budget: the recorded calls are not sent again.
  auto again = t.request();
  again.resume = res.run_id;
  again.config.budget_usd = 10.0;
  auto p = make();
  auto* raw = p.get();
  consume(*raw, before);  // the resumed client answers only what is left
  const auto res2 = t.run(again, std::move(p), std::make_shared<llm::Budget>(10.0));
  EXPECT_EQ(res2.status, cudamaster::store::Status::finished) << t.log();
  EXPECT_EQ(res2.run_id, res.run_id);
  const auto after = call_trace(*s, res.run_id);
  EXPECT_EQ(after.size(), 6u);
  EXPECT_EQ(raw->requests.size(), 6u - before.size());
  EXPECT_EQ(s->run(res.run_id)->sessions, 2);
  EXPECT_EQ(s->run(res.run_id)->config["loop"]["budget_usd"], 0.004);  // the recorded config stays
}

TEST(Loop, InterruptedAtEveryStepResumesWithNothingLostOrRepeated) {
  // Reference: an uninterrupted run.
  InProcess ref;
  {
    auto p = std::make_unique<ScriptedProvider>();
    script_story(*p);
    ASSERT_EQ(ref.run(ref.request(), std::move(p)).status, cudamaster::store::Status::finished);
  }
  auto ref_store = store::RunStore::open(ref.dir.file("runs.db"));
  const auto ref_trace = call_trace(*ref_store, 1);
  const auto ref_job = ref_store->jobs(1)[0];
  const std::size_t ref_steps = ref_store->journal(ref_job.id).size();
  ASSERT_GT(ref_steps, 20u);

  // Interrupt after k LLM calls (the flag is raised inside the provider), then resume.
  for (int k = 1; k <= 6; ++k) {
    InProcess t;
    std::atomic<bool> stop{false};
    class Interrupting final : public llm::Provider {
     public:
      Interrupting(std::unique_ptr<ScriptedProvider> inner, int after, std::atomic<bool>& flag)
          : inner_(std::move(inner)), after_(after), flag_(flag) {}
      std::string name() const override { return inner_->name(); }
      std::string model() const override { return inner_->model(); }
      std::string endpoint() const override { return inner_->endpoint(); }
      llm::Result<llm::ChatResponse> complete(const llm::ChatRequest& r) override {
        auto res = inner_->complete(r);
        if (++n_ >= after_) flag_.store(true);
        return res;
      }

     private:
      std::unique_ptr<ScriptedProvider> inner_;
      int after_, n_ = 0;
      std::atomic<bool>& flag_;
    };
    auto p = std::make_unique<ScriptedProvider>();
    script_story(*p);
    const auto first = t.run(t.request(), std::make_unique<Interrupting>(std::move(p), k, stop), nullptr, "", &stop);
    auto s = store::RunStore::open(t.dir.file("runs.db"));
    const auto partial = call_trace(*s, first.run_id);
    if (k < 6) {
      EXPECT_EQ(first.status, cudamaster::store::Status::stopped) << "k=" << k;
      EXPECT_EQ(s->jobs(first.run_id)[0].stop_reason, "interrupted");
    }
    EXPECT_EQ(partial.size(), static_cast<std::size_t>(k));

    // Resume: a fresh provider that only has the answers not yet used.
    auto rest = std::make_unique<ScriptedProvider>();
    script_story(*rest);
    consume(*rest, partial);
    auto* raw = rest.get();
    auto again = t.request();
    again.resume = first.run_id;
    const int builds_before = t.builder.builds.load();
    const std::size_t evals_before = t.evaluator.libraries.size();
    const auto second = t.run(again, std::move(rest));
    EXPECT_EQ(second.status, cudamaster::store::Status::finished) << "k=" << k << "\n" << t.log();
    EXPECT_EQ(call_trace(*s, first.run_id), ref_trace) << "k=" << k;
    EXPECT_EQ(raw->requests.size(), 6u - static_cast<std::size_t>(k)) << "k=" << k;
    const auto job = s->jobs(first.run_id)[0];
    EXPECT_EQ(s->journal(job.id).size(), ref_steps) << "k=" << k;
    // Nothing built or evaluated twice over both sessions.
    EXPECT_EQ(t.builder.builds.load(), 6) << "k=" << k << " (" << builds_before << " before the resume)";
    // baseline, vendor, 3 candidates, the accepted one's memcheck, racecheck and the two re-measurements
    EXPECT_EQ(t.evaluator.libraries.size(), 9u) << "k=" << k << " (" << evals_before << " before the resume)";
    EXPECT_EQ(rounds_of(*s, first.run_id).size(), 2u);
    EXPECT_EQ(read_file(t.dir.file("out") + "/spmv_csr_fp32.cu"), read_file(ref.dir.file("out") + "/spmv_csr_fp32.cu"));
  }
}

TEST(Loop, ConcurrentJobsShareOneGpuLane) {
  InProcess t;
  t.evaluator.delay_ms = 20;
  auto p = std::make_unique<ScriptedProvider>();
  p->delay_ms = 20;
  for (int i = 0; i < 2; ++i) {
    p->add(Agent::planner, plan_answer("x"));
    p->add(Agent::coder, code_answer(spmv_kernel("// fake-eval: speed=2\n")));
  }
  auto req = t.request();
  req.tasks = {"spmv_csr"};
  req.precisions = {mskb::Precision::fp32, mskb::Precision::bf16};
  req.config.rounds = 1;
  req.jobs = 2;
  // (The bf16 job's answers name the fp32 entry point; how it ends does not matter here.)
  const auto res = t.run(req, std::move(p));
  auto s = store::RunStore::open(t.dir.file("runs.db"));
  EXPECT_EQ(s->jobs(res.run_id).size(), 2u);
  EXPECT_EQ(t.evaluator.max_in_flight, 1);
  EXPECT_GE(t.evaluator.libraries.size(), 4u);  // two baselines and two vendors at least
}

TEST(Loop, EachJobKeepsToOneGpuLaneAndLanesRunConcurrently) {
  InProcess t;
  t.evaluator.delay_ms = 20;
  auto p = std::make_unique<ScriptedProvider>();
  for (int i = 0; i < 2; ++i) {
    p->add(Agent::planner, plan_answer("x"));
    p->add(Agent::coder, code_answer(spmv_kernel("// fake-eval: speed=2\n")));
  }
  auto req = t.request();
  req.tasks = {"spmv_csr"};
  req.precisions = {mskb::Precision::fp32, mskb::Precision::bf16};
  req.config.rounds = 1;
  req.jobs = 2;
  req.gpus = {"5", "7"};
  t.run(req, std::move(p));
  std::map<std::string, std::set<std::string>> lanes_of;
  std::set<std::string> used;
  for (const auto& [precision, gpu] : t.evaluator.gpus) {
    lanes_of[precision].insert(gpu);
    used.insert(gpu);
  }
  ASSERT_EQ(lanes_of.size(), 2u);
  for (const auto& [precision, lanes] : lanes_of) EXPECT_EQ(lanes.size(), 1u) << precision << " moved between GPUs";
  EXPECT_EQ(used, (std::set<std::string>{"5", "7"}));
  // One evaluation at a time on each GPU (none beside another's timing), both GPUs at once.
  for (const auto& [gpu, most] : t.evaluator.max_in_flight_on) EXPECT_EQ(most, 1) << "GPU " << gpu;
  EXPECT_EQ(t.evaluator.max_in_flight, 2);
}
