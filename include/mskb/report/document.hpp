// Owns the report document of a suite run: the JSON of a SuiteReport (the `mskb run|check --json`
// contract that every renderer and `mskb report / compare / rerun / merge` read), merging several
// such documents into one, and the groups a merge expects. The renderers of the document are in
// text.hpp, markdown.hpp, csv.hpp and html.hpp.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/harness/suite.hpp"

namespace mskb {

// The `mskb run --json` document of `report`: {"device", "contenders", "results", "scores",
// "shape_seed" (when set), "partial" (when), "reproduce" (the record completed with what the run
// saw: reproduce_observed), "submission" and "submission_summary" (a submission's run)}. Each
// result carries its speedup over the baseline, its ratio vs the vendor and its fraction of the
// roofline (null when unknown); each score P and the geomean per (contender, sweep).
nlohmann::json report_json(const SuiteReport& report);

// One report from several (e.g. one run per category or per cluster job): each (task, precision)
// group comes whole from the last report that has it; the GPU model must be the same in all.
// Throws std::invalid_argument with a one-line message otherwise.
// `expect`: "task|precision" groups the merged report must hold whole (mskb merge --expect): it
// is partial, listing them under "incomplete_groups", unless each is there with every shipped
// contender of its task (baseline, vendor where the task has one) finished and, in a timed
// report, timed. Without it, the merge is partial when any input was (what a partial input never
// started cannot be known). Submission reports: "skipped" is the union of the inputs' and the
// "submission_summary" is computed again over the merged report.
nlohmann::json merge_reports(const std::vector<nlohmann::json>& reports, const std::vector<std::string>& expect = {});
// The groups of `--expect all|CATEGORY|TASK,...`: every precision of the named tasks.
std::vector<std::string> expected_groups(const std::vector<std::string>& selectors);

}  // namespace mskb
