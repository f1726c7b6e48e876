// Owns the suite summary of a run - the paper's tables from one command: per task the best P,
// the ratio vs the vendor and the stop reason; over the suite the success rate (a correct
// generated kernel with P > 1), fast_p for p in {1, 1.5, 2}, mean P, the mean ratio vs the
// vendor; tokens, cost and latency per agent. Read from the run store, so `cudamaster show`
// prints the same numbers as the run itself.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "cudamaster/store/store.hpp"

namespace cudamaster::loop {

// {"run", "status", "llm", "config", "launch_floor_us" (the device's, null: not measured),
//  "tasks": [...], "suite": {...}, "agents": [...], "cost_usd", "tokens": {"input", "output"}}.
// A task's P is its accepted best's P, else the best P among its correct generated candidates,
// else null (no correct generated kernel). Beside P each task shows the other two yardsticks of
// its best kernel (mskb/report/yardsticks.hpp): "vs_vendor" with "vendor" (the task's route, or
// why there is none) and "roofline" ({"sol", "shape", "median_us", "launch_bound"} at the
// largest timed shape; null without a generated best).
nlohmann::json build_summary(store::RunStore& store, std::int64_t run_id);

// Human tables (stderr / `cudamaster show`).
std::string render_summary(const nlohmann::json& summary);

}  // namespace cudamaster::loop
