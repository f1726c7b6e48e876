// A small run store for the report pages: run 1 (planner on, filtered profiles, 2 rounds) with
// one job whose candidates cover every status - baseline, vendor, a build failure, a wrong result,
// a correct but rejected one and an accepted one - with per-size timings, a profile with filtered
// metrics, the planner's answers (one round's plan carries hostile markup) and a failed agent
// call; and run 2 (planner off, no profiles, 3 rounds, an LLM name with markup) with a failed job.
// Used by report_test.cpp and by cm_report_fixture (the browser test's hostile store).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudamaster/store/store.hpp"

namespace cmtest {

namespace report_fixture {

namespace store = cudamaster::store;
using nlohmann::json;

constexpr const char* kHostile = "<script>console.error(\"INJECTED_PLAN\")</script> & \"quoted\" <b>bold</b>";

inline json config(int rounds, bool planner, const std::string& profile) {
  return {{"device", {{"name", "Test <GPU> & co"}}},
          {"executor", {{"kind", "local"}}},
          {"tasks", {"spmv_csr"}},
          {"precisions", {"fp32"}},
          {"loop", {{"rounds", rounds}, {"debug_loops", 2}, {"patience", 3}, {"profile", profile}, {"planner", planner},
                    {"min_gain", 0.02}, {"allow_libraries", false}, {"sanitize", true}}}};
}

// Two sizes: time, speedup, vs vendor, roofline fraction.
inline std::vector<store::ShapeRow> shapes(double us_small, double us_large, bool vendor_ratio) {
  auto row = [&](const char* shape, std::uint64_t complexity, double us, double base_us, double vendor_us, double sol) {
    store::ShapeRow r;
    r.sweep = "paper";
    r.shape = shape;
    r.complexity = complexity;
    r.median_us = r.min_us = r.max_us = us;
    r.noise = 0.01;
    r.n = 10;
    r.speedup = base_us / us;
    if (vendor_ratio) r.vs_vendor = vendor_us / us;
    r.sol_fraction = sol;
    r.disposition = "passed";
    return r;
  };
  return {row("rows=1024", 1024, us_small, 10.0, 20.0, 0.05), row("rows=4096", 4096, us_large, 40.0, 60.0, 0.25)};
}

inline std::string plan_answer(const std::string& name, const std::string& risks) {
  const json plan = {{"bottleneck", "serial rows"},
                     {"strategies", {{{"name", name}, {"change", "spread each row over a warp"}, {"expected_gain", "about 2x"}}}},
                     {"expected_speedup", 2.0},
                     {"risks", risks},
                     {"rationale", "parallel rows hide the load latency"}};
  return "Some prose first.\n\n```json\n" + plan.dump(2) + "\n```\n";
}

struct Seq {
  std::int64_t n = 0;
  std::int64_t next() { return ++n; }
};

inline std::int64_t candidate(store::RunStore& s, std::int64_t job, Seq& q, int round, const std::string& origin, int attempt) {
  store::CandidateRow c;
  c.job_id = job;
  c.seq = q.next();
  c.round = round;
  c.origin = origin;
  c.attempt = attempt;
  c.source = "// " + origin + " <kernel> & source\n__global__ void k() {}\n";
  c.sha256 = std::string(64, static_cast<char>('a' + (q.n % 6)));
  c.payload = json::object();
  return s.record_candidate(c);
}

inline void build(store::RunStore& s, std::int64_t job, Seq& q, std::int64_t cand, bool ok, const std::string& error = "") {
  store::BuildRow b;
  b.job_id = job;
  b.seq = q.next();
  b.candidate_id = cand;
  b.ok = ok;
  b.arch = "90";
  b.error = error;
  b.payload = json::object();
  s.record_build(b);
}

inline void evaluation(store::RunStore& s, std::int64_t job, Seq& q, std::int64_t cand, const std::string& contender,
                       const std::string& disposition, std::optional<double> p, std::optional<double> vs_vendor,
                       std::vector<store::ShapeRow> rows, const std::string& message = "") {
  store::EvaluationRow e;
  e.job_id = job;
  e.seq = q.next();
  e.candidate_id = cand;
  e.contender = contender;
  e.disposition = disposition;
  e.message = message;
  e.checks_passed = disposition == "passed" ? 3 : 0;
  e.checks_total = 3;
  e.p = p;
  e.geomean = p;
  e.vs_vendor = vs_vendor;
  e.shapes = std::move(rows);
  e.payload = json::object();
  s.record_evaluation(e);
}

inline void call(store::RunStore& s, std::int64_t job, Seq& q, int round, const std::string& agent, int attempt, const std::string& text,
                 std::int64_t in, std::int64_t out, double cost, const std::string& error = "") {
  store::LlmCallRow c;
  c.job_id = job;
  if (error.empty()) c.seq = q.next();
  c.round = round;
  c.agent = agent;
  c.attempt = attempt;
  c.provider = "openai-compatible";
  c.model = "m";
  c.request = json::object();
  c.response_text = text;
  c.finish_reason = error.empty() ? "stop" : "";
  c.input_tokens = in;
  c.output_tokens = out;
  c.cost_usd = cost;
  c.latency_ms = 1500;
  c.error = error;
  c.payload = json::object();
  s.record_llm_call(c);
}

inline void round_row(store::RunStore& s, std::int64_t job, Seq& q, int round, const std::string& outcome, std::int64_t cand,
                      std::optional<double> p, double before, double after, const std::string& plan) {
  store::RoundRow r;
  r.job_id = job;
  r.seq = q.next();
  r.round = round;
  r.outcome = outcome;
  r.candidate_id = cand;
  r.p = p;
  r.best_p_before = before;
  r.best_p_after = after;
  r.attempts = 1;
  r.payload = {{"round", round}, {"outcome", outcome}, {"plan", plan}, {"class", "memory-latency"}, {"steps", {"planner: " + plan}}};
  s.record_round(r);
}

// Fills `s` (an empty store) with runs 1 and 2.
inline void build_store(store::RunStore& s) {
  const std::int64_t run1 = s.create_run("replay:demo.jsonl", config(2, true, "filtered"));
  const std::int64_t job = s.ensure_job(run1, "spmv_csr", "fp32");
  Seq q;
  const std::int64_t base = candidate(s, job, q, 0, "baseline", 0);
  build(s, job, q, base, true);
  evaluation(s, job, q, base, "baseline", "passed", 1.0, 0.5, shapes(10.0, 40.0, true));
  const std::int64_t vendor = candidate(s, job, q, 0, "vendor", 0);
  build(s, job, q, vendor, true);
  evaluation(s, job, q, vendor, "vendor", "passed", 1.25, 1.0, shapes(20.0, 60.0, true));

  call(s, job, q, 1, "planner", 0, plan_answer("warp per row", kHostile), 1000, 200, 0.01);
  const std::int64_t c1 = candidate(s, job, q, 1, "coder", 0);
  call(s, job, q, 1, "coder", 0, "code", 2000, 800, 0.02);
  build(s, job, q, c1, false, "compile error: <identifier> undefined");
  call(s, job, q, 1, "debug", 1, "", 0, 0, 0.0, "HTTP 500: <html>upstream</html>");
  call(s, job, q, 1, "debug", 1, "fix", 1500, 700, 0.015);
  const std::int64_t c2 = candidate(s, job, q, 1, "debug", 1);
  build(s, job, q, c2, true);
  evaluation(s, job, q, c2, "candidate", "wrong_result", std::nullopt, std::nullopt, {}, "12 of 1024 elements outside tolerance");
  const std::int64_t c3 = candidate(s, job, q, 1, "debug", 2);
  build(s, job, q, c3, true);
  evaluation(s, job, q, c3, "candidate", "passed", 0.5, 0.4, shapes(20.0, 80.0, true));
  round_row(s, job, q, 1, "rejected", c3, 0.5, 1.0, 1.0, "warp per row (expected 2x)");

  store::ProfileRow pr;
  pr.job_id = job;
  pr.seq = q.next();
  pr.candidate_id = base;
  pr.round = 2;
  pr.mode = "filtered";
  pr.ok = true;
  pr.cls = "memory-latency";
  pr.source = "ncu";
  pr.confidence = 0.66;
  pr.payload = {{"summary",
                 {{"data",
                   {{"reason", "warps wait on <memory>"},
                    {"shape_str", "rows=4096"},
                    {"top_stall", "long_scoreboard"},
                    {"kernels", {{{"name", "spmv<float>(int, const float*)"}}}},
                    {"all_metrics", {{"a", 1}, {"b", 2}, {"c", 3}}},
                    {"metrics",
                     {{"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", {{"label", "DRAM throughput"}, {"shown", "20.5 %"}}},
                      {"launch__registers_per_thread", {{"label", "registers per thread"}, {"shown", "32 register/thread"}}}}}}}}}};
  s.record_profile(pr);
  call(s, job, q, 2, "planner", 0, plan_answer("four lanes per row", "short rows"), 1200, 250, 0.012);
  const std::int64_t c4 = candidate(s, job, q, 2, "coder", 0);
  call(s, job, q, 2, "coder", 0, "code", 2100, 900, 0.021);
  build(s, job, q, c4, true);
  evaluation(s, job, q, c4, "candidate", "passed", 1.5, 1.2, shapes(5.0, 30.0, true));
  evaluation(s, job, q, base, "baseline/remeasure", "passed", 1.0, std::nullopt, {});
  evaluation(s, job, q, c4, "candidate/remeasure", "passed", 1.6, 1.3, {});
  round_row(s, job, q, 2, "accepted", c4, 1.6, 1.0, 1.6, "four lanes per row (expected 2x)");
  s.set_job_status(job, store::Status::finished, "rounds",
                   {{"best", {{"candidate_id", c4}, {"origin", "candidate"}, {"p", 1.6}, {"vs_vendor", 1.3}, {"sha256", "abc"}}},
                    {"correct", true},
                    {"best_correct_p", 1.6},
                    {"vendor_p", 1.25},
                    {"rounds", 2},
                    {"message", "all 2 rounds done"}});
  s.set_active_seconds(run1, 120);
  s.set_run_status(run1, store::Status::finished, json());

  const std::int64_t run2 = s.create_run("openai:<b>model</b>", config(3, false, "none"));
  const std::int64_t job2 = s.ensure_job(run2, "spmv_csr", "fp32");
  Seq q2;
  const std::int64_t b2 = candidate(s, job2, q2, 0, "baseline", 0);
  build(s, job2, q2, b2, true);
  evaluation(s, job2, q2, b2, "baseline", "passed", 1.0, std::nullopt, shapes(10.0, 40.0, false));
  call(s, job2, q2, 1, "coder", 0, "", 0, 0, 0.0, "budget exhausted");
  s.set_job_status(job2, store::Status::failed, "llm error", {{"correct", false}, {"rounds", 0}, {"message", "coder: budget exhausted"}});
  s.set_active_seconds(run2, 30);
  s.set_run_status(run2, store::Status::failed, json());
}

}  // namespace report_fixture

}  // namespace cmtest
