// Owns the pages of `mskb report` and `mskb compare`: each lays out a document of
// report_data.hpp (run_report_data / compare_data) as one self-contained HTML page (inline CSS
// and SVG charts, a few lines of inline script that make tables sortable; no network, no external
// fonts or scripts; readable without script), as CSV, as Markdown or as a terminal summary. Pure
// functions of their document; every string from a report is escaped.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mskb {

// `source`: what the page was made from (the report's file name), shown in its header.
std::string render_run_html(const nlohmann::json& data, const std::string& source);
// One line per entry: task, precision, category, contender, kind, disposition, checks, then P,
// geomean, vendor ratio, median and best SOL per timed sweep. RFC 4180 quoting.
std::string render_run_csv(const nlohmann::json& data);
// The overview as a fixed-width table (what `mskb report` prints without --html / --csv).
std::string render_run_text(const nlohmann::json& data);

// `sources`: the reports' file names, in the order of the document's labels.
std::string render_compare_html(const nlohmann::json& data, const std::vector<std::string>& sources);
std::string render_compare_markdown(const nlohmann::json& data);

}  // namespace mskb
