// The suite's report renderers and merge, over a `mskb run|check --json` report (the report
// library's side of the suite; SuiteReport in suite.hpp renders through them).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mskb {

// The Markdown report of a `mskb run --json` report (SuiteReport::markdown renders its own).
std::string render_markdown(const nlohmann::json& report);
// The human summary of a `mskb run --json` report (SuiteReport::table renders its own); a
// submission's report ends with render_submission_summary.
std::string render_table(const nlohmann::json& report);
// The "submission_summary" of a report as a table (per category and all: kernels, share correct,
// fast_1, fast_1.5, fast_2, mean and geomean P, vs vendor), then one line per skipped file; empty
// for a report that is not a submission's.
std::string render_submission_summary(const nlohmann::json& report);
// CSV (RFC 4180, a header line) of a `mskb run|check --json` report: one row per timed result
// (task, precision, contender, sweep, shape, complexity, disposition, median_us, min_us, max_us,
// n, noise, speedup_vs_baseline, ratio_vs_vendor, sol_fraction; an unknown number is empty), or
// for a check one row per contender (task, precision, contender, disposition, checks_passed,
// checks_total, message).
std::string render_results_csv(const nlohmann::json& report);
std::string render_contenders_csv(const nlohmann::json& report);
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
