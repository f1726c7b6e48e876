// The Markdown renderings (see markdown.hpp): a suite report (docs/results/), `mskb compare`'s
// tables and `mskb rerun`'s comparison.
#include "mskb/report/markdown.hpp"

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
#include "mskb/util/text.hpp"
#include "run_pieces.hpp"

using json = nlohmann::json;

namespace mskb {

using report::fixed2;
using report::is_share;
using report::shared_gpu_warning;
using report::summary_cell;
using report::summary_columns;
using report::summary_heading;
using report::md_cell;
using report::text_of;

namespace {

std::string md_text(const json& v) { return md_cell(text_of(v)); }

// The title, warnings, device line and the legend.
std::string markdown_preamble(const json& j) {
  std::string out = "# mskb run\n\n";
  if (const std::string w = shared_gpu_warning(j, "**", "\n\n", "- "); !w.empty()) out += w + "\n";
  if (j.contains("incomplete_groups")) {
    std::string groups;
    for (const auto& g : j["incomplete_groups"]) groups += (groups.empty() ? "" : ", ") + g.get<std::string>();
    out += "**Partial report: these (task, precision) groups are missing or not finished: " + groups + ".**\n\n";
  } else if (j.value("partial", false)) {
    out += "**Partial report: the run was still going when this was written.**\n\n";
  }
  const json& d = j["device"];
  out += fmt::format("Device: {} ({} SMs), measured DRAM {:.0f} GB/s, FP32 {:.1f} TFLOP/s, BF16 {:.1f} TFLOP/s.\n\n",
                     d.value("name", "?"), d.value("sms", 0), d.value("dram_bandwidth_gbs", 0.0), d.value("fp32_tflops", 0.0),
                     d.value("bf16_tflops", 0.0));
  out += report::provenance_line(j) + "\n\n";
  out += launch_floor_line(d) + "\n\n";
  out += "Speedup = baseline time / contender time; vs vendor = vendor time / contender time (> 1: faster than the vendor); "
         "SOL = roofline time / contender time. Times are medians of cold-L2 samples (CUDA events around the entry point).\n\n";
  return out;
}

// The timed sweeps of the scores, paper first (just paper when nothing was scored).
std::vector<std::string> timed_sweeps(const json& j) {
  std::vector<std::string> sweeps;
  const std::string paper = to_string(Sweep::paper);
  for (const auto& s : j["scores"]) {
    const std::string w = s.value("sweep", paper);
    if (std::find(sweeps.begin(), sweeps.end(), w) == sweeps.end()) sweeps.push_back(w);
  }
  std::stable_sort(sweeps.begin(), sweeps.end(), [&](const std::string& a, const std::string& b) { return a == paper && b != paper; });
  if (sweeps.empty()) sweeps.push_back(paper);
  return sweeps;
}

// One row per contender: P and geomean per timed sweep (as columns when more than one sweep was
// timed), vs vendor (geomean over shapes), best SOL.
std::string markdown_summary(const json& j) {
  const std::vector<std::string> sweeps = timed_sweeps(j);
  const std::string paper = to_string(Sweep::paper);
  const auto intervals = p_intervals(j);
  std::string head = "| task | prec | contender | disposition | checks |", rule = "|---|---|---|---|---|";
  for (const auto& w : sweeps) {
    head += sweeps.size() > 1 ? " P [interval] " + w + " | geomean " + w + " |" : std::string(" P [interval] | geomean |");
    rule += "---|---|";
  }
  std::string sol_head;
  for (const auto& w : sweeps) sol_head += " SOL by shape " + w + " |";
  std::string out = "## Summary (complexity-weighted speedup P and geomean over the " +
                    (sweeps.size() > 1 ? std::string("timed sweeps") : sweeps.front() + " sweep") + ")\n\n" + head +
                    " vs vendor (geomean) | best SOL |" + sol_head + "\n" + rule + "---|---|" +
                    [&] {
                      std::string r;
                      for (std::size_t i = 0; i < sweeps.size(); ++i) r += "---|";
                      return r;
                    }() + "\n";
  for (const auto& c : j["contenders"]) {
    std::string PG, V = "-", S = "-";
    for (const auto& w : sweeps) {
      std::string P = "-", G = "-";
      for (const auto& s : j["scores"])
        if (s["task"] == c["task"] && s["precision"] == c["precision"] && s["contender"] == c["contender"] && s.value("sweep", paper) == w) {
          P = p_with_interval(s["P"], find_interval(intervals, {c["task"], c["precision"], c["contender"], w}));
          if (!s["geomean"].is_null()) G = fmt::format("{:.2f}", s["geomean"].get<double>());
        }
      PG += " " + P + " | " + G + " |";
    }
    std::vector<double> vv, sol;
    for (const auto& r : j["results"])
      if (r["task"] == c["task"] && r["precision"] == c["precision"] && r["contender"] == c["contender"]) {
        if (!r["ratio_vs_vendor"].is_null()) vv.push_back(r["ratio_vs_vendor"]);
        if (!r["sol_fraction"].is_null()) sol.push_back(r["sol_fraction"]);
      }
    const auto g = geomean(vv);
    V = md_cell(vendor_cell(task_vendor(j, c["task"]), g ? json(*g) : json(nullptr), false));
    if (!sol.empty()) S = fmt::format("{:.0f}%", 100 * *std::max_element(sol.begin(), sol.end()));
    std::string by_shape;
    for (const auto& w : sweeps) by_shape += " " + sol_cell(sol_by_shape(j, c["task"], c["precision"], c["contender"], w)) + " |";
    out += fmt::format("| {} | {} | {} | {} | {}/{} |{} {} | {} |{}\n", c["task"].get<std::string>(), c["precision"].get<std::string>(),
                       c["contender"].get<std::string>(),
                       c["disposition"].get<std::string>() + (c.value("timing_pending", false) ? " (checks; timing pending)" : ""),
                       c["checks_passed"].get<int>(),
                       c["checks_total"].get<int>(), PG, V, S, by_shape);
  }
  out += "\nSOL by shape: the fraction of the roofline at each timed shape, smallest first; L: launch-bound.\n";
  if (!intervals.empty()) out += md_cell(interval_legend_of(j)) + ".\n";
  const std::vector<std::string> notes = vendor_notes(j);
  if (!notes.empty()) {
    out += "\nVendor routes:\n\n";
    for (const std::string& n : notes) out += "- " + md_cell(n) + "\n";
  }
  out += "\n## Distance to the roofline\n\n";
  for (const std::string& l : roofline_summary_lines(roofline_summary(j))) out += "- " + md_cell(l) + "\n";
  return out;
}

std::string markdown_per_shape(const json& j) {
  std::string out = "\n## Per shape\n\n| task | prec | contender | sweep | shape | median us | n | noise | speedup | vs vendor | SOL | SM MHz | launch-bound | device |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  const auto floor = launch_floor_us(j.value("device", json::object()));
  // What a result may lack (a hand-made or older report: no clock, no sample count) shows as "-".
  auto number = [](const json& o, const char* key, const char* spec, double scale) {
    const std::optional<double> v = report::num_at(o, key);
    return v ? fmt::format(fmt::runtime(spec), *v * scale) : std::string("-");
  };
  for (const auto& r : j["results"]) {
    const std::string shape = report::shape_label(r["shape"]);
    const json& t = r["time_us"];
    out += fmt::format("| {} | {} | {} | {} | {} | {:.2f} | {} | {} | {} | {} | {} | {} | {} | {} |\n", r["task"].get<std::string>(),
                       r["precision"].get<std::string>(), r["contender"].get<std::string>(), r["sweep"].get<std::string>(), shape,
                       t["median"].get<double>(), number(t, "n", "{:.0f}", 1), number(t, "noise", "{:.2f}%", 100),
                       number(r, "speedup_vs_baseline", "{:.2f}", 1), number(r, "ratio_vs_vendor", "{:.2f}", 1),
                       number(r, "sol_fraction", "{:.0f}%", 100), number(r, "sm_clock_mhz", "{:.0f}", 1),
                       is_launch_bound(t["median"], floor) ? "L" : "", device_cell(r));
  }
  return out;
}

// Device time beside call time: what it is, the host-bound shapes, why some have none, and P on
// device time next to P per contender and sweep.
std::string markdown_device_time(const json& j) {
  if (report::array_of(j, "results").empty()) return "";
  std::string out = "\n## Device time\n\nDevice time: the time the GPU was busy with the kernels, copies and sets one call issued "
                    "(the union of their CUPTI activity intervals, median of a few extra calls after the samples); host share = 1 - "
                    "device time / call time of those calls. P device: P computed on device times, with the interval where another lease's would fall (the spread model's device-time bounds). A host-bound shape (host share "
                    "> 50%) spends most of its call time on the host: its time depends on the CPU, the allocator and the driver.\n\n";
  for (const std::string& l : device_time_lines(device_time_summary(j), 20)) out += "- " + md_cell(l) + "\n";
  out += "\n| task | prec | contender | sweep | P | P device |\n|---|---|---|---|---|---|\n";
  for (const auto& s : j["scores"])
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", md_text(s["task"]), md_text(s["precision"]), md_text(s["contender"]),
                       md_text(s.value("sweep", json())), fixed2(s.value("P", json())),
                       md_cell(p_with_interval(s.value("p_device", json()), s.value("p_device_interval", json()))));
  return out;
}

// Where each contender's evaluation time went (runner phases, both parts of a two-phase run).
// generate and reference are host work, mostly done ahead while the previous instance was checked
// or timed; waited is what of it the checks waited for.
std::string markdown_phase_times(const json& j) {
  // The slowest input generation of the run: one instance (shape and seed) of one contender.
  const json* slowest = nullptr;
  for (const auto& c : j["contenders"]) {
    const auto g = c.find("slowest_generate");
    if (g != c.end() && g->is_object() && (slowest == nullptr || (*g)["seconds"].get<double>() > (*slowest)["slowest_generate"]["seconds"].get<double>()))
      slowest = &c;
  }
  std::string out =
      "\n## Evaluation time by phase (seconds)\n\ngenerate and reference: host work, mostly done ahead while the previous "
      "instance was checked or timed; waited: the part the GPU work waited for; slowest generate: the one checked "
      "instance (a shape and seed) whose inputs took longest to make.\n\n";
  if (slowest != nullptr)
    out += fmt::format("Slowest input generation of the run: {:.2f} s ({} {} {}, {}).\n\n", (*slowest)["slowest_generate"]["seconds"].get<double>(),
                       (*slowest)["task"].get<std::string>(), (*slowest)["precision"].get<std::string>(),
                       (*slowest)["contender"].get<std::string>(), (*slowest)["slowest_generate"]["shape"].get<std::string>());
  out += "| task | prec | contender | generate | reference | waited | check | timing | total | slowest generate |\n"
         "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& c : j["contenders"]) {
    const json ps = c.value("phase_seconds", json::object());
    auto sec = [&](const char* k) { return fmt::format("{:.1f}", ps.value(k, 0.0)); };
    const auto g = c.find("slowest_generate");
    const std::string slow = g != c.end() && g->is_object()
                                 ? fmt::format("{:.2f} ({})", (*g)["seconds"].get<double>(), (*g)["shape"].get<std::string>())
                                 : "-";
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {:.1f} | {} |\n", c["task"].get<std::string>(),
                       c["precision"].get<std::string>(), c["contender"].get<std::string>(), sec("generate"), sec("reference"),
                       sec("waited"), sec("check"), sec("timing"), c.value("seconds", 0.0), slow);
  }
  return out;
}

// The submission summary and skipped files as Markdown (empty for another report).
std::string markdown_submission(const json& j) {
  if (!j.contains("submission_summary")) return "";
  const json& sum = j["submission_summary"];
  std::string out = "\n## Submission summary\n\n" + summary_heading(sum) +
                    ". fast_p: share of kernels correct with P > p; mean and geomean P over the correct ones; "
                    "vs vendor: geomean of vendor time / kernel time.\n\n| sweep | category | kernels |";
  std::string rule = "|---|---|---|";
  for (const auto& [key, head] : summary_columns()) {
    out += std::string(" ") + head + " |";
    rule += "---|";
  }
  out += "\n" + rule + "\n";
  for (const json& r : sum["rows"]) {
    out += fmt::format("| {} | {} | {} |", r["sweep"].is_string() ? r["sweep"].get<std::string>() : "-", r["category"].get<std::string>(),
                       r["entries"].get<int>());
    for (const auto& [key, head] : summary_columns()) out += " " + summary_cell(r, key, is_share(key)) + " |";
    out += "\n";
  }
  const json& sub = j.value("submission", json::object());
  if (sub.contains("skipped") && !sub["skipped"].empty()) {
    out += "\nSkipped files:\n\n";
    for (const json& f : sub["skipped"]) out += "- " + f.value("file", "") + ": " + f.value("reason", "") + "\n";
  }
  return out;
}

}  // namespace

std::string render_markdown(const json& j) {
  return markdown_preamble(j) + markdown_summary(j) + markdown_submission(j) + markdown_device_time(j) + markdown_per_shape(j) +
         markdown_phase_times(j);
}

std::string render_compare_markdown(const json& data) {
  std::string labels;
  for (const auto& l : data["labels"]) labels += (labels.empty() ? "" : " vs ") + text_of(l);
  std::string out = "# mskb compare: " + md_text(labels) + "\n\n";
  for (std::size_t i = 0; i < data["labels"].size(); ++i)
    out += fmt::format("- {}: {}. {}\n", md_text(data["labels"][i]), md_text(data["devices"][i]),
                       md_text(data["provenance"][i]));
  out += "\nSweep " + md_text(data["sweep"]) + "; the first report is the reference. P: complexity-weighted speedup over the baseline of the "
         "same run; vs vendor: vendor time / contender time; delta = second minus first; time ratio = first time / second time "
         "(> 1: the second is faster).\n";
  for (const json& p : data["pairs"]) {
    const std::string la = md_text(data["labels"][p["a"].get<std::size_t>()]), lb = md_text(data["labels"][p["b"].get<std::size_t>()]);
    out += fmt::format("\n## {} vs {}\n\n{} entries in both, {} with a different correctness, {} only in {}, {} only in {}.\n", la, lb,
                       p["rows"].size(), p["correctness"].size(), p["only_a"].size(), la, p["only_b"].size(), lb);
    out += fmt::format("\n### By category\n\n| category | kind | entries | correct {0} | correct {1} | mean P {0} | mean P {1} | delta P | "
                       "geomean P ratio | vs vendor {0} | vs vendor {1} | delta vs vendor | time ratio |\n"
                       "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
                       la, lb);
    for (const json& c : p["categories"])
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", md_text(c["category"]), md_text(c["kind"]), text_of(c["rows"]),
                         text_of(c["correct_a"]), text_of(c["correct_b"]), fixed2(c["mean_P_a"]), fixed2(c["mean_P_b"]), report::signed2(c["dP"]),
                         fixed2(c["geomean_P_ratio"]), fixed2(c["vendor_a"]), fixed2(c["vendor_b"]), report::signed2(c["d_vendor"]), fixed2(c["time_ratio"]));
    out += fmt::format("\n### Correctness differs ({})\n\n", p["correctness"].size());
    if (p["correctness"].empty()) {
      out += "None.\n";
    } else {
      out += fmt::format("| task | prec | contender | {} | {} |\n|---|---|---|---|---|\n", la, lb);
      for (const json& r : p["correctness"])
        out += fmt::format("| {} | {} | {} | {} | {} |\n", md_text(r["task"]), md_text(r["precision"]), md_text(r["contender"]), md_text(r["a"]["disposition"]),
                           md_text(r["b"]["disposition"]));
    }
    out += fmt::format("\n### Per task\n\n| task | prec | contender | P {0} | P {1} | delta P | P ratio | vs vendor {0} | vs vendor {1} | "
                       "delta vs vendor | time ratio |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
                       la, lb);
    for (const json& r : p["rows"])
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", md_text(r["task"]), md_text(r["precision"]), md_text(r["contender"]),
                         fixed2(r["a"]["P"]), fixed2(r["b"]["P"]), report::signed2(r["dP"]), fixed2(r["P_ratio"]), fixed2(r["a"]["vendor_ratio"]),
                         fixed2(r["b"]["vendor_ratio"]), report::signed2(r["d_vendor"]), fixed2(r["time_ratio"]));
  }
  return out;
}

std::string render_rerun_markdown(const json& c, const std::string& compare_markdown) {
  std::string out = "# " + md_cell(rerun_heading(c)) + "\n\n";
  for (const json& n : c["notes"]) out += "- " + md_cell(n.get<std::string>()) + "\n";
  if (!c["notes"].empty()) out += "\n";
  out += "**" + rerun_summary_line(c) + ".** P new/old and time new/old: the rerun's P and median time over the report's (time: geometric mean over "
         "the shapes both timed); P report [lo, hi]: the report's P and the interval the rerun's P must fall in; time / shift: the time ratio over the whole run's shift at the entry's time scales; time bound: how far that (the time ratio where no shift was measured) may be from 1.\n\n|";
  for (const auto& h : rerun_table_head()) out += " " + h + " |";
  out += "\n|";
  for (std::size_t i = 0; i < rerun_table_head().size(); ++i) out += "---|";
  out += "\n";
  for (const auto& r : rerun_table_rows(c)) {
    out += "|";
    for (const auto& cell : r) out += " " + md_cell(cell) + " |";
    out += "\n";
  }
  const auto differ = rerun_differences(c);
  if (!differ.empty()) {
    out += "\n## Differences\n\n";
    for (const std::string& d : differ) out += "- " + md_cell(d) + "\n";
  }
  // mskb compare's tables, one level down.
  std::string cmp;
  for (const std::string& l : split(compare_markdown, '\n')) cmp += (l.rfind('#', 0) == 0 ? "#" + l : l) + "\n";
  return out + "\n" + cmp;
}

}  // namespace mskb
