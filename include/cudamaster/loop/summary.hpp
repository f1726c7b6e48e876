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

// {"run", "status", "llm", "config", "tasks": [...], "suite": {...}, "agents": [...], "cost_usd",
//  "tokens": {"input", "output"}}. A task's P is its accepted best's P, else the best P among its
// correct generated candidates, else null (no correct generated kernel).
nlohmann::json build_summary(store::RunStore& store, std::int64_t run_id);

// Human tables (stderr / `cudamaster show`).
std::string render_summary(const nlohmann::json& summary);

}  // namespace cudamaster::loop
