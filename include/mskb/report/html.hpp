// Owns the HTML pages of `mskb report`, `mskb compare` and `mskb rerun`: each lays out a document
// of numbers.hpp (run_report_data / compare_data) or rerun.hpp as one self-contained page (inline
// CSS and SVG charts, a few lines of inline script that make tables sortable; no network, no
// external fonts or scripts; readable without script). Pure functions of their documents; every
// string from a report is escaped. Also the page pieces cudamaster's run page shares.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mskb {

// `source`: what the page was made from (the report's file name), shown in its header.
std::string render_run_html(const nlohmann::json& data, const std::string& source);
// `sources`: the reports' file names, in the order of the document's labels.
std::string render_compare_html(const nlohmann::json& data, const std::vector<std::string>& sources);
// mskb compare's page (`compare_html`) with the reproduction table of rerun_comparison as its
// first section.
std::string render_rerun_html(const nlohmann::json& comparison, const std::string& compare_html);

namespace report {
// A summary card: a big value over a small label (both HTML already).
std::string html_card(const std::string& value, const std::string& label);
}  // namespace report

}  // namespace mskb
