// Owns `cudamaster report --html`: one self-contained HTML page per run (no scripts, no external
// resources) with the suite metrics, each task's result against its baseline and vendor, the
// rounds (plan, outcome, best P before and after), every evaluation, the profiles' bottleneck
// classes, agent usage and cost, and the best kernels' sources. report_document() reads the run
// store; render_html() is a pure function of that document (unit-tested), and escapes every
// string it prints (kernel sources, plans and model answers are untrusted text).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "cudamaster/store/store.hpp"
#include "mskb/util/html.hpp"

namespace cudamaster::loop {

// {"run", "summary" (build_summary), "config", "created_at", "active_seconds", "sessions",
//  "jobs": [{task, precision, status, stop_reason, result, rounds: [...], evaluations: [...],
//  profiles: [...], best_source}]}. Throws store::StoreError if the run does not exist.
nlohmann::json report_document(store::RunStore& store, std::int64_t run_id);

std::string render_html(const nlohmann::json& doc);

// The escaping every page of the tools shares (mskb/util/html.hpp).
using mskb::html_escape;

}  // namespace cudamaster::loop
