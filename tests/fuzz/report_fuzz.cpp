// The report readers (`mskb report`, `mskb rerun`, `mskb merge` read reports others made): any JSON
// document either renders (text, CSV, HTML, Markdown) or is refused by a std::exception with a
// one-line message, which mskb prints as "mskb: error: ..."; never a crash, a hang or undefined
// behaviour. A report compared with itself (`mskb rerun --against` the same file) is reproduced.
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "mskb/report/csv.hpp"
#include "mskb/report/html.hpp"
#include "mskb/report/markdown.hpp"
#include "mskb/report/numbers.hpp"
#include "mskb/report/rerun.hpp"
#include "mskb/report/text.hpp"

namespace {

template <typename F>
bool renders(const char* what, F&& f) {
  try {
    f();
    return true;
  } catch (const std::exception& e) {
    fuzz::require_one_line(e.what(), what);
    return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const nlohmann::json run = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (run.is_discarded()) return 0;
  nlohmann::json report_data;
  if (renders("run_report_data", [&] { report_data = mskb::run_report_data(run); })) {
    renders("render_run_text", [&] { (void)mskb::render_run_text(report_data); });
    renders("render_run_csv", [&] { (void)mskb::render_run_csv(report_data); });
    renders("render_run_html", [&] { (void)mskb::render_run_html(report_data, "report.json"); });
  }
  renders("render_markdown", [&] { (void)mskb::render_markdown(run); });
  renders("render_table", [&] { (void)mskb::render_table(run); });
  renders("render_results_csv", [&] { (void)mskb::render_results_csv(run); });
  nlohmann::json cmp;
  if (renders("rerun_comparison", [&] { cmp = mskb::rerun_comparison(run, run, 0.1); })) {
    FUZZ_REQUIRE(mskb::rerun_consistent(cmp), "a report compared with itself is not reproduced");
    renders("render_rerun_markdown", [&] { (void)mskb::render_rerun_markdown(cmp, ""); });
  }
  return 0;
}
