// Owns the terminal renderings of the report documents: a suite report's table (what `mskb run`
// prints), a submission's summary, `mskb report`'s overview and `mskb rerun`'s comparison.
// Pure functions of their documents.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace mskb {

// The human summary of a `mskb run --json` report (document.hpp); a submission's report ends
// with render_submission_summary.
std::string render_table(const nlohmann::json& report);
// The "submission_summary" of a report as a table (per category and all: kernels, share correct,
// fast_1, fast_1.5, fast_2, mean and geomean P, vs vendor), then one line per skipped file; empty
// for a report that is not a submission's.
std::string render_submission_summary(const nlohmann::json& report);
// The overview of run_report_data (numbers.hpp) as a fixed-width table (what `mskb report`
// prints without --html / --csv).
std::string render_run_text(const nlohmann::json& data);
// The comparison of rerun_comparison (rerun.hpp): warnings (GPU model, commit, partial report), a
// line per entry and sweep, the reasons of each entry that differs, and "reproduced N of M
// entries within X%".
std::string render_rerun_text(const nlohmann::json& comparison);

}  // namespace mskb
