// Owns `cudamaster compare`: the ablation table of several runs of one run store - per run the
// success rate, fast_p (p = 1, 1.5, 2), mean P, the ratio vs the vendor, tokens and cost per agent
// and the wall time, labelled by the settings that differ between the runs (rounds, debug loops,
// profile mode, planner, LLM, ...). compare_document() reads the store; the renderers are pure
// functions of its result (HTML: a self-contained page with a fast_p chart; Markdown: the table).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudamaster/store/store.hpp"

namespace cudamaster::loop {

// The settings of a run that an ablation varies, from its stored configuration:
// {llm, tasks, precisions, device, executor, rounds, debug_loops, patience, profile, planner,
//  min_gain, allow_libraries, sanitize} (values as the strings the tables print).
nlohmann::json run_flags(const store::RunInfo& run);

// {"runs": [{run, label, status, llm, created_at, flags, suite (build_summary's), tasks,
//            agents: [{agent, calls, failed, input_tokens, output_tokens, cost_usd}],
//            tokens: {input, output}, cost_usd, wall_seconds}],
//  "differing": [flag names whose values differ between the runs, in run_flags order],
//  "common": {flag: value} (the rest), "agents": [every agent name of any run, sorted]}.
// A run's label is "run N" followed by its differing flags ("run 2: planner=off, rounds=3").
// Throws store::StoreError for a run that does not exist.
nlohmann::json compare_document(store::RunStore& store, const std::vector<std::int64_t>& run_ids);

std::string render_compare_html(const nlohmann::json& doc);
std::string render_compare_markdown(const nlohmann::json& doc);

}  // namespace cudamaster::loop
