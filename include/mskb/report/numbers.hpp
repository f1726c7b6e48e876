// Owns the numbers that `mskb report` and `mskb compare` show, computed from `mskb run --json`
// reports by pure functions (no I/O, unit-tested on hand-made reports): the suite overview by
// category and contender kind (share correct, fast_p, mean and geometric-mean P, ratio vs the
// vendor, median fraction of the roofline), one entry per evaluated contender, the per-task
// series the charts draw (time, roofline, speedup and vendor ratio by size), failures, and the
// comparison of several reports (deltas of P and of the vendor ratio, correctness changes).
// The renderers (text.hpp, markdown.hpp, csv.hpp, html.hpp) only lay these documents out.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/report/category.hpp"

namespace mskb {


// The sweeps a report timed (its "scores"), paper first, then the others by name.
std::vector<std::string> report_sweeps(const nlohmann::json& run);

// The data of `mskb report`. Throws std::invalid_argument (one line) unless `run` has the shape
// of an `mskb run` / `mskb check` JSON report. Definitions (each over the entries of one category
// and contender kind, an entry being one (task, precision, contender) of the report):
//   share_correct  entries whose disposition is correct (passed, noisy) / entries
//   fast_p         entries correct with P > p in the sweep / entries, p in {1, 1.5, 2}
//   mean_P, geomean_P  over the correct entries with a P in the sweep (null: none)
//   vendor_ratio   geometric mean over the entries of each entry's geometric-mean vendor time /
//                  contender time over the sweep's shapes (> 1: faster than the vendor)
//   median_sol     median over the entries of each entry's median roofline time / contender time
// Returns
// {"device": {...as in the report},
//  "summary": {"contenders", "correct", "groups", "tasks", "timed_shapes", "sweeps": [...],
//              "shape_seed" (null when absent), "partial", "incomplete_groups": [...],
//              "shared_gpu_shapes", "categories": [...], "launch_floor_us" (null: not measured),
//              "roofline" (yardsticks.hpp's roofline_summary),
//              "device_time" (device_yardstick.hpp's device_time_summary)},
//  "overview": [{"sweep", "category" (a category or "all"), "kind", "entries", "correct",
//                "share_correct", "fast_1", "fast_1_5", "fast_2", "mean_P", "geomean_P",
//                "vendor_ratio", "median_sol"}],   one set per timed sweep (sweep null: none timed)
//  "entries": [{"task", "precision", "category", "contender", "kind", "disposition", "correct",
//               "expect", "checks_passed", "checks_total", "message", "gpu",
//               "vendor" (yardsticks.hpp's task_vendor: the route, why none, the ABI's cost),
//               "sweeps": {SWEEP: {"P", "geomean", "vendor_ratio", "median_sol", "best_sol",
//                                  "shapes", "sol_by_shape" (yardsticks.hpp), "p_device" (P on
//                                  device time, device_yardstick.hpp), "P_interval" ([lo, hi]
//                                  around P, intervals.hpp; absent without one)}}}],
//  "groups": [{"task", "precision", "category",
//              "roofline": [{"sweep", "shape", "complexity", "us"}],
//              "series": [{"contender", "kind", "points": [{"sweep", "shape", "complexity",
//                          "time_us", "noise", "speedup", "vendor_ratio", "sol", "launch_bound",
//                          "device_us", "host_share", "host_bound"}]}],
//              "failures": [{"contender", "disposition", "message", "checks_passed",
//                            "checks_total", "expect", "as_expected"}]}]}
// Entries and groups are ordered by category, task, precision (fp32 first), then contender kind
// and name; points and roofline by complexity. Numbers that cannot be computed are null.
nlohmann::json run_report_data(const nlohmann::json& run, const CategoryOf& category_of = registry_category);

// The summary of a submission's report (mskb run|check --submission): the overview above over
// the user's kernels alone (kind candidate), per timed sweep, per category and "all":
// {"kernels" (entries), "correct", "skipped" (files of "submission"."skipped"),
//  "rows": [{"sweep", "category", "entries", "correct", "share_correct", "fast_1", "fast_1_5",
//            "fast_2", "mean_P", "geomean_P", "vendor_ratio", "median_sol"}]}
// What a warning about timings beside other GPU processes adds when the run overlapped its timing
// parts (`device.timing_overlap` > 1): the run's own idle processes are among them. "" otherwise.
std::string timing_overlap_note(const nlohmann::json& device);

nlohmann::json submission_summary(const nlohmann::json& run, const CategoryOf& category_of = registry_category);

// The data of `mskb compare`: report 0 against each of the others on one sweep. Entries are
// matched on (task, precision, contender); a group with exactly one candidate kernel on each side
// that no name matched pairs those two (two submissions named differently, "a / b").
// {"labels": [...], "sweep",
//  "devices": [device name per report],
//  "pairs": [{"a": 0, "b": i,
//             "rows": [{"task", "precision", "category", "contender", "kind",
//                       "a": {"contender", "disposition", "correct", "P", "vendor_ratio"}, "b": {...},
//                       "dP" (P_b - P_a), "P_ratio" (P_b / P_a), "d_vendor" (b - a),
//                       "time_ratio" (geomean over the shapes both timed of time_a / time_b:
//                                     > 1, B is faster), "shapes"}],
//             "categories": [{"category" (or "all"), "kind", "rows", "both_P", "correct_a",
//                             "correct_b", "mean_P_a", "mean_P_b", "dP" (mean_P_b - mean_P_a),
//                             "geomean_P_ratio", "vendor_a", "vendor_b", "d_vendor",
//                             "time_ratio"}],
//             "correctness": [rows whose correct flag differs],
//             "only_a": [{"task", "precision", "contender", "disposition"}], "only_b": [...]}]}
// Category statistics use the rows with a P (or vendor ratio, time ratio) on both sides.
// Throws std::invalid_argument when fewer than two reports are given, a report is not one, or
// the labels do not match the reports.
nlohmann::json compare_data(const std::vector<nlohmann::json>& runs, const std::vector<std::string>& labels,
                            const std::string& sweep = "paper", const CategoryOf& category_of = registry_category);

}  // namespace mskb
