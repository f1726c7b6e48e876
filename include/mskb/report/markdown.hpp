// Owns the Markdown renderings of the report documents: a suite report (for docs/results/),
// `mskb compare`'s tables and `mskb rerun`'s comparison. Pure functions of their documents.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace mskb {

// The Markdown report of a `mskb run --json` report (document.hpp): summary, submission summary,
// per-shape tables and the evaluation time by phase.
std::string render_markdown(const nlohmann::json& report);
// The tables of compare_data (numbers.hpp).
std::string render_compare_markdown(const nlohmann::json& data);
// rerun_comparison's table (rerun.hpp), followed by `compare_markdown` (mskb compare's tables,
// one heading level down).
std::string render_rerun_markdown(const nlohmann::json& comparison, const std::string& compare_markdown);

}  // namespace mskb
