// Owns `cudamaster report --html`: one self-contained HTML page per run (no scripts, no external
// resources) with the suite metrics, each task's result against its baseline and vendor, every
// candidate with its per-size timings (us, speedup, ratio vs vendor, % of roofline), a P-per-round
// chart of every candidate (accepted, rejected and failed drawn apart; baseline and vendor as
// horizontal lines), the rounds with their plans in full (strategies, expected gain, risks,
// rationale), the profiles with their filtered metrics, agent usage and cost per run and per job
// (failed calls included) and the best kernels' sources. report_document() reads the run store;
// render_html() is a pure function of that document (unit-tested), and escapes every string it
// prints (kernel sources, plans and model answers are untrusted text).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "cudamaster/store/store.hpp"
#include "mskb/util/html.hpp"

namespace cudamaster::loop {

// {"run", "status", "llm", "created_at", "active_seconds", "sessions", "config",
//  "summary" (build_summary),
//  "jobs": [{task, precision, status, stop_reason, result, vendor_p,
//            rounds: [{round, outcome, p, best_p_before, best_p_after, attempts, candidate_id, plan,
//                      steps, class, plan_detail: {bottleneck, strategies: [{name, change,
//                      expected_gain}], expected_speedup, risks, rationale, structured, problems}
//                      (the round's planner answer, parsed; absent without one)}],
//            candidates: [{id, round, origin, attempt, sha256, status (baseline | vendor |
//                      accepted | rejected | failed), reason, p, p_remeasured, geomean, vs_vendor,
//                      evaluation (the contender of the timed evaluation),
//                      shapes: [{sweep, shape, complexity, median_us, noise, speedup, vs_vendor,
//                      sol_fraction, disposition}]}],
//            evaluations: [...], profiles: [{round, candidate_id, mode, ok, class, confidence,
//                      source, message, reason, kernel, shape, top_stall,
//                      metrics: [{label, shown}] (the filtered metrics), all_metrics (count)}],
//            agents: [{agent, calls, failed, input_tokens, output_tokens, cost_usd, latency_ms}],
//            failed_calls: [{round, agent, attempt, error}], best_source}]}.
// Throws store::StoreError if the run does not exist.
nlohmann::json report_document(store::RunStore& store, std::int64_t run_id);

std::string render_html(const nlohmann::json& doc);

// The P-per-round chart of one job of report_document (an <svg> element): a point per generated
// candidate at its round (debug attempts just right of it), accepted / rejected / failed (P = 0)
// as separate series, the best P so far, the baseline (P = 1) and the vendor as horizontal lines.
std::string p_per_round_chart(const nlohmann::json& job);

// `svg` (mskb::svg_chart's element) without its namespace attribute: an <svg> inside an HTML page
// needs none, and the pages then hold no URL at all (nothing that could look like a resource).
std::string inline_svg(std::string svg);

// The escaping every page of the tools shares (mskb/util/html.hpp).
using mskb::html_escape;

}  // namespace cudamaster::loop
