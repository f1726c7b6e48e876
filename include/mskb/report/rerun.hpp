// Owns the comparison of a report with its rerun (`mskb rerun REPORT.json`): per (task, precision,
// contender) the ratio new / old of the median times and of P, correctness changes, within a
// tolerance or not; and the table every rendering of it shows (text.hpp, markdown.hpp, html.hpp
// lay it out). Pure functions of their documents.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mskb {

// The comparison of a report (`old_report`) with its rerun (`new_report`), `tolerance` relative:
// {"tolerance", "check_only",
//  "old": {"device", "commit", "sm_clock_mhz", "partial"}, "new": {...}, "same_gpu_model",
//  "sweeps": [...],
//  "entries": [{"task", "precision", "contender",
//               "old": {"disposition", "correct", "checks_passed", "checks_total"}, "new": {...},
//               "sweeps": [{"sweep", "P_old", "P_new", "P_ratio" (new / old),
//                           "time_ratio" (new / old: the geometric mean over the shapes both
//                                         timed of the median times' ratio), "shapes",
//                           "worst_shape": {"shape", "ratio"} (the shape whose ratio is furthest
//                                          from 1)}],
//               "reproduced", "reasons": [...]}],
//  "only_old": [{"task", "precision", "contender", "disposition"}], "only_new": [...],
//  "random_shapes_differ": [tasks], "notes": [...],
//  "summary": {"entries", "reproduced", "differ"}}
// An entry is reproduced when its correctness is the same (and, when it is not correct, its
// disposition) and, in every sweep both timed, |time_ratio - 1| <= tolerance and
// |P_ratio - 1| <= tolerance. An entry only in the report is not reproduced; one only in the
// rerun is listed and not counted. Entries are matched by compare_data (numbers.hpp).
// Throws std::invalid_argument when either is not a report.
nlohmann::json rerun_comparison(const nlohmann::json& old_report, const nlohmann::json& new_report, double tolerance);

// The pieces each rendering of a comparison shows: its heading, the summary line ("reproduced
// N of M entries within X%"), the table (one row per (entry, sweep), per entry when nothing was
// timed, then the entries only in the report) and one line per difference.
std::string rerun_heading(const nlohmann::json& comparison);
std::string rerun_summary_line(const nlohmann::json& comparison);
const std::vector<std::string>& rerun_table_head();
std::vector<std::vector<std::string>> rerun_table_rows(const nlohmann::json& comparison);
std::vector<std::string> rerun_differences(const nlohmann::json& comparison);

}  // namespace mskb
