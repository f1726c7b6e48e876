// Owns the comparison of a report with its rerun (`mskb rerun REPORT.json`): per (task, precision,
// contender) the ratio new / old of the median times and of P, correctness changes, within the
// spread model's intervals (or a flat tolerance) or not; and the table every rendering of it shows (text.hpp, markdown.hpp, html.hpp
// lay it out). Pure functions of their documents.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/core/spread.hpp"

namespace mskb {

// How an entry's numbers are judged: by the spread model's intervals (the default: `model`), or,
// when `tolerance` is set, by a flat relative tolerance on both ratios (the model unused).
struct RerunJudge {
  std::optional<double> tolerance;
  const SpreadModel* model = &spread_model();
};

// The comparison of a report (`old_report`) with its rerun (`new_report`):
// {"judge": {"kind": "model", "label", "model": {"version", "quantile", "scope", "provisional"}}
//           or {"kind": "tolerance", "tolerance"},
//  "tolerance" (the flat tolerance, null under the model), "scope" ("between_process": both
//  reports name the same GPU UUID, "between_lease" otherwise), "check_only",
//  "old": {"device", "gpu_uuid", "commit", "sm_clock_mhz", "launch_floor_us", "partial"}, "new": {...}, "same_gpu_model",
//  "shift": {"shapes", "call_ratio", "device_shapes", "device_ratio"} (the whole run: geometric means
//           of new / old over every shape both timed correctly; a note says it, and the launch
//           floors when they differ by more than 3%); model, with enough entries to measure it:
//           "bands": [{"band", "shapes", "entries", "call_ratio"}] (the host's shift per time
//           scale: the median shape's ratio), "call_bound" / "device_bound" ([lo, hi] of the
//           whole run's ratio: the model's common term), "call_dev" (|ln call_ratio| in units of
//           its bound: the run-wide check),
//  "sweeps": [...],
//  "entries": [{"task", "precision", "contender",
//               "old": {"disposition", "correct", "checks_passed", "checks_total"}, "new": {...},
//               "sweeps": [{"sweep", "P_old", "P_new", "P_ratio" (new / old),
//                           "P_interval" ([lo, hi] around P_old; model only, contenders but the baseline),
//                           "time_ratio" (new / old: the geometric mean over the shapes both
//                                         timed of the median times' ratio), "shapes",
//                           "run_shift" (model: the run's shift at this entry's time scales,
//                                        from the other entries; absent where too few),
//                           "time_ratio_vs_run" (time_ratio / run_shift: what is judged),
//                           "time_bound" ([lo, hi] of what is judged; model only),
//                           "time_dev", "P_dev" (model: |ln ratio| in units of its interval),
//                           "kernel_moved" (model, outside, with device times: device time
//                                           outside its bound),
//                           "worst_shape": {"shape", "ratio"} (the shape whose ratio is furthest
//                                          from 1), "moved" (model, outside: what moved),
//                           model, both runs with device times, not the baseline: "P_device_old",
//                           "P_device_new", "P_device_interval" (the report's, device-time bounds),
//                           "P_device_within" (shown, not judged)}],
//               "verdict" ("reproduced" | "chance" | "host_moved" | "differs"), "reproduced"
//               (verdict reproduced or chance), "reasons": [...]}],
//  "only_old": [{"task", "precision", "contender", "disposition"}], "only_new": [...],
//  "random_shapes_differ": [tasks], "notes": [...],
//  "summary": {"entries", "reproduced", "differ", "device_P": {"checked", "within"} (when any),
//              model only: "checks" (intervals tested, the run-wide one included), "outside" (checks
//              outside), "expected_outside" ((1 - quantile) * checks), "allowed_outside" (the
//              binomial bound at 1%), "hard" (entries whose correctness or disposition differs, or
//              only in the report), "within", "chance", "host_moved" (entries by verdict),
//              "beyond" (checks beyond the simultaneous bound), "simultaneous_factor" (that bound
//              in units of an interval: simultaneous_factor(quantile, checks, 1%)),
//              "run_differs" (the run-wide check beyond it, the kernels' time moved or unknown),
//              "consistent" (differ == 0, outside <= allowed_outside, not run_differs)}}
// Under the model (docs/harness.md section 5; between processes or leases by the GPU UUIDs) an
// entry's correctness must be the same (and, when it is not correct, its disposition); in every
// sweep both timed, its P must fall in the report's P interval and its time ratio, taken beside
// the run's shift at its time scales (rerun_shift.hpp; where enough other entries measure it),
// within its bound. Inside all: "reproduced"; outside some, none beyond the simultaneous bound of
// all the run's checks: "chance" (reproduced: that many checks give as much); its call time beyond
// it with its device time inside its bound: "host_moved"; else "differs". With a tolerance:
// |ratio - 1| <= tolerance for both, or "differs". For an entry outside, "moved" says whether
// device or host time moved (when both reports carry device_us), which side of P moved, and the
// shapes that moved most. An entry only in the report differs; one only in the rerun is listed
// and not counted. Entries are matched by compare_data (numbers.hpp).
// Throws std::invalid_argument when either is not a report.
nlohmann::json rerun_comparison(const nlohmann::json& old_report, const nlohmann::json& new_report, const RerunJudge& judge);
// The flat check: RerunJudge{tolerance}.
nlohmann::json rerun_comparison(const nlohmann::json& old_report, const nlohmann::json& new_report, double tolerance);
// Whether the rerun reproduces the report as a whole (mskb rerun's exit code): under the model,
// summary.consistent; with a tolerance, every entry reproduced.
bool rerun_consistent(const nlohmann::json& comparison);

// The pieces each rendering of a comparison shows: its heading (both runs' commits and GPUs, the
// judge), the summary line ("reproduced N of M entries within X%", or within their intervals with
// how many fell outside against chance), the table (one row per (entry, sweep), per entry when nothing was
// timed, then the entries only in the report) and one line per difference.
std::string rerun_heading(const nlohmann::json& comparison);
std::string rerun_summary_line(const nlohmann::json& comparison);
const std::vector<std::string>& rerun_table_head();
std::vector<std::vector<std::string>> rerun_table_rows(const nlohmann::json& comparison);
std::vector<std::string> rerun_differences(const nlohmann::json& comparison);

}  // namespace mskb
