// Owns the three yardsticks every contender's row shows, and the device's launch floor:
//   P            complexity-weighted speedup over the naive baseline (scores);
//   vs vendor    vendor time / contender time, or "no vendor" (the task has a vendor route but
//                the run has no vendor time to compare with), or "none: <reason>" (no library
//                route fits the task's ABI: TaskSpec::vendor empty), with the ABI's forced cost
//                (TaskSpec::vendor_abi_cost) named next to the vendor's numbers;
//   SOL          roofline time / contender time at each shape.
// A shape whose median time is within kLaunchBoundFactor of the device's launch floor (one empty
// kernel launched and synchronized, `mskb device`) is launch-bound: P there measures launch
// overhead, not the kernel. The suite summary counts, per category, the tasks with a correct
// contender within kNearRoofline of the roofline at their largest shape and names the furthest.
// Pure functions of `mskb run --json` documents (document.hpp); the registry fills in the vendor
// notes of a report that does not carry them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/report/category.hpp"

namespace mskb {

inline constexpr double kLaunchBoundFactor = 1.5;
inline constexpr double kNearRoofline = 0.8;

// The launch floor of a device object ("launch_floor_us"), when it was measured.
std::optional<double> launch_floor_us(const nlohmann::json& device);
// Whether a median time (us) is within kLaunchBoundFactor of the floor (false without a floor).
bool is_launch_bound(const nlohmann::json& median_us, const std::optional<double>& floor_us);
// One line about the floor for a report's header: "launch floor X us (...)" or why there is none.
std::string launch_floor_line(const nlohmann::json& device);

// The vendor route of `task` as reports show it: {"route", "none_reason", "abi_cost"} (strings;
// route "" when the task has none), from the report's "vendors" when it names the task, else
// from the registry; null for a task neither knows.
nlohmann::json task_vendor(const nlohmann::json& report, const std::string& task);
// The "vendors" member of a report over these tasks (from the registry).
nlohmann::json vendors_json(const std::vector<std::string>& tasks);
// The vendor cell of a row: the ratio (two decimals) when there is one, else "none: <reason>"
// for a task without a vendor route, else "no vendor"; `with_reason` false: "none" alone.
std::string vendor_cell(const nlohmann::json& vendor, const nlohmann::json& ratio, bool with_reason = true);
// Lines about the tasks' vendor routes a report's readers need next to the numbers: "TASK: none:
// <reason>" and "TASK: the vendor route pays an ABI cost: <cost>", one per task, sorted.
std::vector<std::string> vendor_notes(const nlohmann::json& report);

// The roofline fraction of one contender at each shape of one sweep, by complexity:
// [{"shape", "complexity", "time_us", "sol" (null: unknown), "launch_bound"}].
nlohmann::json sol_by_shape(const nlohmann::json& report, const std::string& task, const std::string& precision,
                            const std::string& contender, const std::string& sweep);
// Those as one cell: "3%L 40% 81%" (L: launch-bound; "-" for an unknown fraction); "-" when empty.
std::string sol_cell(const nlohmann::json& shapes);

// The suite's distance to the roofline, over the correct contenders at each task's largest
// timed shape (the largest complexity of any sweep):
// {"threshold": kNearRoofline,
//  "categories": [{"category" (or "all"), "tasks" (with a roofline), "within" (best SOL >=
//                  threshold), "furthest": [{"task", "precision", "contender", "shape", "sol"}] (the
//                  three lowest best SOL)}],
//  "furthest": [...] (the five lowest over the suite)}.
nlohmann::json roofline_summary(const nlohmann::json& report, const CategoryOf& category_of = registry_category);
// Its lines: "CATEGORY: N of M tasks within 80% of the roofline at their largest shape; furthest:
// TASK PREC CONTENDER SOL at SHAPE, ...".
std::vector<std::string> roofline_summary_lines(const nlohmann::json& summary);

// Adds the yardsticks to a `mskb run --json` document (report_json and merge_reports call it):
// each result's "launch_bound"; each score's "vs_vendor" (geomean over its shapes, null: none),
// "vendor" (vendor_cell with its reason) and "sol_by_shape"; "vendors" (those of the registry
// for tasks the document does not name yet) and "roofline_summary"; each score's "p_device"
// (device_yardstick.hpp).
void add_yardsticks(nlohmann::json& report, const CategoryOf& category_of = registry_category);

}  // namespace mskb
