// The terminal renderings (see text.hpp): a suite report's table and submission summary, the
// overview of `mskb report`, and the comparison of `mskb rerun`.
#include "mskb/report/text.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "mskb/core/scoring.hpp"
#include "mskb/protocol/vocabulary.hpp"
#include "mskb/report/cells.hpp"
#include "mskb/report/device_yardstick.hpp"
#include "mskb/report/intervals.hpp"
#include "mskb/report/rerun.hpp"
#include "mskb/report/yardsticks.hpp"
#include "run_pieces.hpp"

using json = nlohmann::json;

namespace mskb {

using report::fixed2;
using report::is_share;
using report::shared_gpu_warning;
using report::summary_cell;
using report::summary_columns;
using report::summary_heading;
using report::percent;
using report::text_of;

std::string render_submission_summary(const json& j) {
  if (!j.contains("submission_summary")) return "";
  const json& sum = j["submission_summary"];
  std::string out = "\nsubmission: " + summary_heading(sum) + "\n" + fmt::format("{:<8} {:<12} {:>7}", "sweep", "category", "kernels");
  for (const auto& [key, head] : summary_columns()) out += fmt::format(" {:>9}", head);
  out += "\n";
  for (const json& r : sum["rows"]) {
    out += fmt::format("{:<8} {:<12} {:>7}", r["sweep"].is_string() ? r["sweep"].get<std::string>() : "-", r["category"].get<std::string>(),
                       r["entries"].get<int>());
    for (const auto& [key, head] : summary_columns()) out += fmt::format(" {:>9}", summary_cell(r, key, is_share(key)));
    out += "\n";
  }
  const json& sub = j.value("submission", json::object());
  if (sub.contains("skipped"))
    for (const json& f : sub["skipped"]) out += "skipped " + f.value("file", "") + ": " + f.value("reason", "") + "\n";
  return out;
}

std::string render_table(const json& j) {
  // The contender column fits the longest name (at least 12): two user kernels stay apart.
  std::size_t cw = 12;
  for (const auto& c : j["contenders"]) cw = std::max(cw, c["contender"].get<std::string>().size());
  // The paper sweep's P, or the ad-hoc shapes' (--shape: sweep "custom") where a run timed only those.
  std::string paper = to_string(Sweep::paper);
  bool custom = !j["scores"].empty();
  for (const auto& s : j["scores"]) custom = custom && s.value("sweep", paper) == to_string(Sweep::custom);
  if (custom) paper = to_string(Sweep::custom);
  const auto intervals = p_intervals(j);
  std::string out = fmt::format("{:<22} {:<5} {:<{}} {:<17} {:>18} {:>8} {:>9} {:>8} {:>10} {:>8}  {}\n", "task", "prec", "contender", cw,
                                "disposition", "P [interval]", "geomean", "vs vendor", "best SOL", "median(us)", "P device",
                                "SOL by shape (" + paper + ")");
  for (const auto& c : j["contenders"]) {
    std::string P = "-", G = "-", S = "-", T = "-", PD = "-";
    for (const auto& s : j["scores"])
      if (s["task"] == c["task"] && s["precision"] == c["precision"] && s["contender"] == c["contender"] && s["sweep"] == paper) {
        P = p_with_interval(s["P"], find_interval(intervals, {c["task"], c["precision"], c["contender"], paper}));
        if (!s["geomean"].is_null()) G = fmt::format("{:.2f}", s["geomean"].get<double>());
        PD = report::fixed2(s.value("p_device", json()));
      }
    std::vector<double> vv, sol;
    double largest = 0;
    for (const auto& r : j["results"])
      if (r["task"] == c["task"] && r["precision"] == c["precision"] && r["contender"] == c["contender"]) {
        if (!r["ratio_vs_vendor"].is_null()) vv.push_back(r["ratio_vs_vendor"]);
        if (!r["sol_fraction"].is_null()) sol.push_back(r["sol_fraction"]);
        largest = r["time_us"]["median"];
      }
    const auto g = geomean(vv);
    const std::string V = vendor_cell(task_vendor(j, c["task"]), g ? json(*g) : json(nullptr), false);
    if (!sol.empty()) S = fmt::format("{:.0f}%", 100 * *std::max_element(sol.begin(), sol.end()));
    if (largest > 0) T = fmt::format("{:.1f}", largest);
    out += fmt::format("{:<22} {:<5} {:<{}} {:<17} {:>18} {:>8} {:>9} {:>8} {:>10} {:>8}  {}\n", c["task"].get<std::string>(),
                       c["precision"].get<std::string>(), c["contender"].get<std::string>(), cw,
                       c["disposition"].get<std::string>(), P, G, V, S, T, PD,
                       sol_cell(sol_by_shape(j, c["task"], c["precision"], c["contender"], paper)));
  }
  if (custom) {
    std::string shapes;
    for (const auto& r : j.value("reproduce", json::object()).value("settings", json::object()).value("custom_shapes", json::array()))
      shapes += (shapes.empty() ? "" : "; ") + r.get<std::string>();
    out += "shapes: ad-hoc (--shape, sweep custom; not the task's sweeps): " + shapes + "\n";
  }
  if (!intervals.empty()) out += interval_legend_of(j) + "\n";
  out += report::provenance_line(j) + "\n";
  out += launch_floor_line(j.value("device", json::object())) + "\n";
  for (const std::string& n : vendor_notes(j)) out += "vendor: " + n + "\n";
  for (const std::string& l : roofline_summary_lines(roofline_summary(j))) out += "roofline: " + l + "\n";
  for (const std::string& l : device_time_lines(device_time_summary(j))) out += l + "\n";
  return out + shared_gpu_warning(j, "", "\n", "  ") + render_submission_summary(j);
}

std::string render_run_text(const json& data) {
  const json& s = data["summary"];
  const json& dev = data["device"].is_object() ? data["device"] : json::object();
  std::string out = fmt::format("{}: {} contenders ({} correct) over {} tasks, {} timed shapes{}\n", dev.value("name", std::string("?")),
                                text_of(s["contenders"]), text_of(s["correct"]), text_of(s["tasks"]), text_of(s["timed_shapes"]),
                                s.value("partial", false) ? " (partial report)" : "");
  out += fmt::format("{:<8} {:<12} {:<11} {:>7} {:>8} {:>6} {:>6} {:>6} {:>7} {:>8} {:>9} {:>7}\n", "sweep", "category", "kind", "entries",
                     "correct", "fast1", "fast1.5", "fast2", "mean P", "geomean", "vs vendor", "SOL");
  for (const json& r : data["overview"])
    out += fmt::format("{:<8} {:<12} {:<11} {:>7} {:>8} {:>6} {:>6} {:>6} {:>7} {:>8} {:>9} {:>7}\n", r["sweep"].is_null() ? "-" : text_of(r["sweep"]),
                       text_of(r["category"]), text_of(r["kind"]), text_of(r["entries"]), percent(r["share_correct"]), percent(r["fast_1"]), percent(r["fast_1_5"]),
                       percent(r["fast_2"]), fixed2(r["mean_P"]), fixed2(r["geomean_P"]), fixed2(r["vendor_ratio"]), percent(r["median_sol"]));
  out += s.value("provenance", std::string()) + "\n";
  out += launch_floor_line(dev) + "\n";
  if (s.contains("roofline"))
    for (const std::string& l : roofline_summary_lines(s["roofline"])) out += "roofline: " + l + "\n";
  if (s.contains("device_time"))
    for (const std::string& l : device_time_lines(s["device_time"])) out += l + "\n";
  return out;
}

std::string render_rerun_text(const json& c) {
  std::string out = rerun_heading(c) + "\n";
  for (const json& n : c["notes"]) out += n.get<std::string>() + "\n";
  const auto rows = rerun_table_rows(c);
  std::vector<std::size_t> width;
  for (const auto& h : rerun_table_head()) width.push_back(h.size());
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (std::size_t i = 0; i < cells.size(); ++i) l += (i ? "  " : "") + fmt::format("{:<{}}", cells[i], i + 1 == cells.size() ? 0 : width[i]);
    return l + "\n";
  };
  out += line(rerun_table_head());
  for (const auto& r : rows) out += line(r);
  for (const std::string& d : rerun_differences(c)) out += d + "\n";
  return out + rerun_summary_line(c) + "\n";
}

}  // namespace mskb
