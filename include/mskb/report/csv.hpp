// Owns the CSV renderings (RFC 4180, a header line) of the report documents. Pure functions of
// their documents; fields quoted by cells.hpp's csv_field.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace mskb {

// A `mskb run|check --json` report (document.hpp): one row per timed result (task, precision,
// contender, sweep, shape, complexity, disposition, median_us, min_us, max_us, n, noise,
// speedup_vs_baseline, ratio_vs_vendor, sol_fraction, launch_bound, vendor: why there is no
// ratio ("none: <reason>", "no vendor") or the ABI's cost on the vendor route; an unknown number
// is empty), or for a
// check one row per contender (task, precision, contender, disposition, checks_passed,
// checks_total, message). Lines end with CRLF.
std::string render_results_csv(const nlohmann::json& report);
std::string render_contenders_csv(const nlohmann::json& report);
// run_report_data's entries (numbers.hpp): one line per entry: task, precision, category,
// contender, kind, disposition, checks, then P, geomean, vendor ratio, median and best SOL per
// timed sweep.
std::string render_run_csv(const nlohmann::json& data);

}  // namespace mskb
