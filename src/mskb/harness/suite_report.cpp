// The suite's reports: SuiteReport's JSON (the `mskb run --json` contract), table and Markdown,
// and merging several reports into one.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "mskb/core/registry.hpp"
#include "mskb/core/scoring.hpp"
#include "mskb/harness/report_data.hpp"
#include "mskb/harness/reproduce.hpp"
#include "mskb/harness/suite.hpp"

using json = nlohmann::json;

namespace mskb {

namespace {

json num_or_null(double x) { return std::isfinite(x) && x > 0 ? json(x) : json(nullptr); }

}  // namespace

json SuiteReport::to_json() const {
  json results = json::array(), scores = json::array(), contenders = json::array();
  // Index timings of baseline and vendor per (task, precision, sweep, shape).
  std::map<std::string, double> base, vend;
  auto key = [](const ContenderResult& r, const ShapeTiming& t) {
    return r.task + "|" + r.precision + "|" + to_string(t.sweep) + "|" + t.shape.str();
  };
  for (const auto& run : runs) {
    const auto& r = run.result;
    if (!is_correct(r.disposition)) continue;
    for (const auto& t : r.timings) {
      const ContenderKind kind = contender_kind(r.contender);
      if (kind == ContenderKind::baseline) base[key(r, t)] = t.time.median_us;
      if (kind == ContenderKind::vendor) vend[key(r, t)] = t.time.median_us;
    }
  }
  for (const auto& run : runs) {
    const auto& r = run.result;
    contenders.push_back({{"task", r.task},
                          {"precision", r.precision},
                          {"contender", r.contender},
                          {"kernel", r.kernel},
                          {"disposition", r.disposition},
                          {"message", r.message},
                          {"checks_passed", r.checks_passed},
                          {"checks_total", r.checks_total},
                          {"failure", r.failure},
                          {"build", {{"ok", run.build.ok}, {"cache_hit", run.build.cache_hit}, {"seconds", run.build.seconds}, {"key", run.build.key}}},
                          {"seconds", r.seconds},
                          {"phase_seconds", r.phase_seconds},
                          {"slowest_generate", slowest_generate_json(r)},
                          {"gpu", run.gpu.empty() ? json(nullptr) : json(run.gpu)},
                          {"expect", run.expect.empty() ? json(nullptr) : json(run.expect)}});
    if (run.timing_pending) contenders.back()["timing_pending"] = true;
    if (!r.timing_part_seconds.empty()) contenders.back()["timing_part_seconds"] = r.timing_part_seconds;
    if (!r.sanitized.empty()) contenders.back()["sanitized"] = {{"tools", r.sanitized}, {"shapes", kSanitizerShapes}};
    std::map<std::string, std::vector<WeightedSample>> weighted;
    std::map<std::string, std::vector<double>> speedups;
    for (const auto& t : r.timings) {
      const auto b = base.find(key(r, t));
      const auto v = vend.find(key(r, t));
      const double s = b != base.end() ? speedup(b->second, t.time.median_us) : 0;
      const double rv = v != vend.end() ? ratio_vs_vendor(v->second, t.time.median_us) : 0;
      results.push_back({{"task", r.task},
                         {"precision", r.precision},
                         {"contender", r.contender},
                         {"sweep", t.sweep},
                         {"shape", t.shape},
                         {"complexity", t.complexity},
                         {"disposition", is_correct(r.disposition) ? t.disposition : r.disposition},
                         {"time_us", {{"median", t.time.median_us}, {"min", t.time.min_us}, {"max", t.time.max_us}, {"n", t.time.n},
                                      {"noise", t.time.noise}, {"wall_median", t.time.wall_median_us}}},
                         {"sm_clock_mhz", t.time.sm_clock_mhz},
                         {"roofline_us", num_or_null(t.roofline_us)},
                         {"speedup_vs_baseline", num_or_null(s)},
                         {"ratio_vs_vendor", num_or_null(rv)},
                         {"sol_fraction", num_or_null(t.roofline_us > 0 ? sol_fraction(t.roofline_us, t.time.median_us) : 0)},
                         // Other processes on the GPU around the samples (null: not known).
                         {"gpu_others", t.time.gpu_others >= 0 ? json(t.time.gpu_others) : json(nullptr)}});
      if (t.time.gpu_others > 0) results.back()["gpu_other_pids"] = t.time.gpu_other_pids;
      if (s > 0 && is_correct(r.disposition)) {
        weighted[to_string(t.sweep)].push_back({t.complexity, s});  // keyed by name: scores in name order
        speedups[to_string(t.sweep)].push_back(s);
      }
    }
    for (const auto& [sweep, w] : weighted) {
      const auto P = complexity_weighted(w);
      const auto g = geomean(speedups[sweep]);
      scores.push_back({{"task", r.task}, {"precision", r.precision}, {"contender", r.contender}, {"sweep", sweep},
                        {"P", P ? json(*P) : json(nullptr)}, {"geomean", g ? json(*g) : json(nullptr)}});
    }
  }
  json out = {{"device", device}, {"contenders", contenders}, {"results", results}, {"scores", scores}};
  if (shape_seed != 0) out["shape_seed"] = shape_seed;
  if (partial) out["partial"] = true;
  if (!reproduce.is_null()) out["reproduce"] = reproduce_observed(reproduce, out);
  if (submission) {
    json skipped = json::array();
    for (const SkippedFile& f : submission->skipped) skipped.push_back({{"file", f.path}, {"reason", f.reason}});
    out["submission"] = {{"dir", submission->dir}, {"kernels", submission->kernels.size()}, {"skipped", skipped}};
    out["submission_summary"] = submission_summary(out);
  }
  return out;
}

std::string SuiteReport::markdown() const { return render_markdown(to_json()); }

std::vector<std::string> expected_groups(const std::vector<std::string>& selectors) {
  std::vector<std::string> out;
  auto add = [&](const TaskSpec& t) {
    for (Precision p : {Precision::fp32, Precision::bf16}) {  // every task has both
      const std::string g = t.name + "|" + to_string(p);
      if (std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
    }
  };
  for (const std::string& sel : selectors) {
    bool matched = false;
    for (const TaskSpec& t : all_tasks())
      if (sel == "all" || t.category == sel) {
        add(t);
        matched = true;
      }
    if (!matched) add(get_task(sel));  // throws on an unknown name
  }
  return out;
}

namespace {

// Whether report `r` holds the (task, precision) group whole (see merge_reports).
// A report's array member, by reference (json::value() would copy it), or an empty array.
const json& array_of(const json& r, const char* key) {
  static const json empty = json::array();
  const auto it = r.find(key);
  return it != r.end() && it->is_array() ? *it : empty;
}

// A contender entry of a report whose disposition is a correct one.
bool correct_in_report(const json& c) {
  const std::optional<Disposition> d = from_string<Disposition>(c.value("disposition", std::string()));
  return d && is_correct(*d);
}

bool group_whole(const json& r, const std::string& task, const std::string& precision) {
  const TaskSpec* spec = find_task(task);
  if (spec == nullptr) return false;
  if (precision != "fp32" && precision != "bf16") return false;
  const Precision p = parse_precision(precision);
  const json& results = array_of(r, "results");
  const bool timed = !results.empty();
  std::set<std::string> finished, timed_ok;
  for (const json& x : results)
    if (x.value("task", "") == task && x.value("precision", "") == precision) timed_ok.insert(x.value("contender", ""));
  for (const json& c : array_of(r, "contenders")) {
    if (c.value("task", "") != task || c.value("precision", "") != precision) continue;
    if (c.value("timing_pending", false)) return false;
    const std::string who = c.value("contender", "");
    if (timed && correct_in_report(c) && timed_ok.count(who) == 0) return false;
    finished.insert(who);
  }
  for (const KernelFile& k : shipped_kernels(*spec, p, {ContenderKind::baseline, ContenderKind::vendor}))
    if (finished.count(k.contender) == 0) return false;
  return true;
}

}  // namespace

json merge_reports(const std::vector<json>& reports, const std::vector<std::string>& expect) {
  if (reports.empty()) throw std::invalid_argument("merge: no reports");
  json out = {{"device", json::object()}, {"contenders", json::array()}, {"results", json::array()}, {"scores", json::array()}};
  bool partial = false;
  std::string name;
  // (task, precision) groups, each from the last report that has it: speedups and scores compare
  // contenders measured in the same run, so a group is never assembled from two runs.
  std::map<std::string, std::size_t> owner;
  auto group = [](const json& e) { return e.value("task", std::string()) + "|" + e.value("precision", std::string()); };
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const json& r = reports[i];
    if (!r.is_object() || !r.contains("contenders") || !r["contenders"].is_array() || !r.contains("device"))
      throw std::invalid_argument("merge: report " + std::to_string(i + 1) + " is not an mskb run/check JSON report");
    const std::string n = r["device"].value("name", std::string());
    if (i == 0) {
      name = n;
      out["device"] = r["device"];
    } else if (n != name) {
      throw std::invalid_argument("merge: reports from different GPU models (" + name + " and " + n + ")");
    }
    partial = partial || r.value("partial", false);
    for (const json& c : r["contenders"]) owner[group(c)] = i;
  }
  for (std::size_t i = 0; i < reports.size(); ++i)
    for (const char* k : {"contenders", "results", "scores"})
      for (const json& e : array_of(reports[i], k))
        if (owner.count(group(e)) && owner[group(e)] == i) out[k].push_back(e);
  // Submissions: the skipped files of every input, the summary of the merged report.
  for (const json& r : reports) {
    if (!r.contains("submission") || !r["submission"].is_object()) continue;
    if (!out.contains("submission")) {
      out["submission"] = r["submission"];
      out["submission"]["skipped"] = json::array();
    }
    for (const json& f : array_of(r["submission"], "skipped")) {
      json& all = out["submission"]["skipped"];
      if (std::find(all.begin(), all.end(), f) == all.end()) all.push_back(f);
    }
  }
  if (out.contains("submission")) out["submission_summary"] = submission_summary(out);
  if (!expect.empty()) {
    json incomplete = json::array();
    for (const std::string& g : expect) {
      const auto o = owner.find(g);
      const std::size_t bar = g.find('|');
      if (o == owner.end() || !group_whole(reports[o->second], g.substr(0, bar), g.substr(bar + 1))) incomplete.push_back(g);
    }
    partial = !incomplete.empty();
    if (partial) out["incomplete_groups"] = incomplete;
  }
  if (partial) out["partial"] = true;
  return out;
}

namespace {
// "N=1024,M=8" from a report's shape object (its "_order" key left out).
std::string shape_label(const json& shape) {
  std::string out;
  for (auto it = shape.begin(); it != shape.end(); ++it)
    if (it.key() != "_order") out += (out.empty() ? "" : ",") + it.key() + "=" + std::to_string(it.value().get<int64_t>());
  return out;
}

// "task prec contender shape (PIDs)" of every timed shape that had other processes on its GPU.
std::vector<std::string> shared_gpu_shapes(const json& j) {
  std::vector<std::string> out;
  if (!j.contains("results")) return out;
  for (const auto& r : j["results"]) {
    if (!r.contains("gpu_others") || !r["gpu_others"].is_number_integer() || r["gpu_others"].get<int>() <= 0) continue;
    std::string pids;
    for (const auto& p : r.value("gpu_other_pids", json::array())) pids += (pids.empty() ? "" : " ") + std::to_string(p.get<uint64_t>());
    out.push_back(fmt::format("{} {} {} {} {} (PID {})", r["task"].get<std::string>(), r["precision"].get<std::string>(),
                              r["contender"].get<std::string>(), r.value("sweep", ""), shape_label(r["shape"]), pids));
  }
  return out;
}

// The warning about those shapes (empty when none): a heading wrapped in `emphasis` and ended by
// `after_heading`, then one `bullet` line per shape (at most 20).
std::string shared_gpu_warning(const json& j, const std::string& emphasis, const char* after_heading, const char* bullet) {
  const auto shared = shared_gpu_shapes(j);
  if (shared.empty()) return "";
  // With overlapping timing parts the run's own waiting processes are among them: say so.
  std::string own = timing_overlap_note(j.value("device", json::object()));
  if (!own.empty()) own = " " + own;
  std::string out = fmt::format(
      "{0}WARNING: {1} timed shape(s) ran while other processes held a context on the GPU; their times (and the speedups "
      "computed from them) may be slowed by sharing it:{0}{3}{2}",
      emphasis, shared.size(), after_heading, own);
  for (std::size_t i = 0; i < shared.size() && i < 20; ++i) out += bullet + shared[i] + "\n";
  if (shared.size() > 20) out += fmt::format("{}... and {} more\n", bullet, shared.size() - 20);
  return out;
}

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
  std::string head = "| task | prec | contender | disposition | checks |", rule = "|---|---|---|---|---|";
  for (const auto& w : sweeps) {
    head += sweeps.size() > 1 ? " P " + w + " | geomean " + w + " |" : std::string(" P | geomean |");
    rule += "---|---|";
  }
  std::string out = "## Summary (complexity-weighted speedup P and geomean over the " +
                    (sweeps.size() > 1 ? std::string("timed sweeps") : sweeps.front() + " sweep") + ")\n\n" + head +
                    " vs vendor (geomean) | best SOL |\n" + rule + "---|---|\n";
  for (const auto& c : j["contenders"]) {
    std::string PG, V = "-", S = "-";
    for (const auto& w : sweeps) {
      std::string P = "-", G = "-";
      for (const auto& s : j["scores"])
        if (s["task"] == c["task"] && s["precision"] == c["precision"] && s["contender"] == c["contender"] && s.value("sweep", paper) == w) {
          if (!s["P"].is_null()) P = fmt::format("{:.2f}", s["P"].get<double>());
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
    if (auto g = geomean(vv)) V = fmt::format("{:.2f}", *g);
    if (!sol.empty()) S = fmt::format("{:.0f}%", 100 * *std::max_element(sol.begin(), sol.end()));
    out += fmt::format("| {} | {} | {} | {} | {}/{} |{} {} | {} |\n", c["task"].get<std::string>(), c["precision"].get<std::string>(),
                       c["contender"].get<std::string>(),
                       c["disposition"].get<std::string>() + (c.value("timing_pending", false) ? " (checks; timing pending)" : ""),
                       c["checks_passed"].get<int>(),
                       c["checks_total"].get<int>(), PG, V, S);
  }
  return out;
}

std::string markdown_per_shape(const json& j) {
  std::string out = "\n## Per shape\n\n| task | prec | contender | sweep | shape | median us | n | noise | speedup | vs vendor | SOL | SM MHz |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  auto f2 = [](const json& x) { return x.is_null() ? std::string("-") : fmt::format("{:.2f}", x.get<double>()); };
  for (const auto& r : j["results"]) {
    const std::string shape = shape_label(r["shape"]);
    out += fmt::format("| {} | {} | {} | {} | {} | {:.2f} | {} | {:.2f}% | {} | {} | {} | {:.0f} |\n", r["task"].get<std::string>(),
                       r["precision"].get<std::string>(), r["contender"].get<std::string>(), r["sweep"].get<std::string>(), shape,
                       r["time_us"]["median"].get<double>(), r["time_us"]["n"].get<int>(), 100 * r["time_us"]["noise"].get<double>(),
                       f2(r["speedup_vs_baseline"]), f2(r["ratio_vs_vendor"]),
                       r["sol_fraction"].is_null() ? std::string("-") : fmt::format("{:.0f}%", 100 * r["sol_fraction"].get<double>()),
                       r["sm_clock_mhz"].get<double>());
  }
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

// A number of the submission summary: "-" for null, a share as a percentage, else two decimals.
std::string summary_cell(const json& row, const char* key, bool share) {
  const auto it = row.find(key);
  if (it == row.end() || !it->is_number()) return "-";
  return share ? fmt::format("{:.0f}%", 100 * it->get<double>()) : fmt::format("{:.2f}", it->get<double>());
}

const std::vector<std::pair<const char*, const char*>>& summary_columns() {
  static const std::vector<std::pair<const char*, const char*>> cols = {
      {"share_correct", "correct"}, {"fast_1", "fast_1"},   {"fast_1_5", "fast_1.5"},     {"fast_2", "fast_2"},
      {"mean_P", "mean P"},         {"geomean_P", "geomean P"}, {"vendor_ratio", "vs vendor"}};
  return cols;
}

bool is_share(const char* key) { return std::string(key) == "share_correct" || std::string(key).rfind("fast_", 0) == 0; }

// The heading line of the summary: kernels, skipped files, the sweep(s).
std::string summary_heading(const json& sum) {
  std::string sweeps;
  for (const json& r : sum["rows"])
    if (r["sweep"].is_string() && sweeps.find(r["sweep"].get<std::string>()) == std::string::npos)
      sweeps += (sweeps.empty() ? "" : ", ") + r["sweep"].get<std::string>();
  return fmt::format("{} kernel{} judged ({} correct), {} file{} skipped; {}", sum.value("kernels", 0), sum.value("kernels", 0) == 1 ? "" : "s",
                     sum.value("correct", 0), sum.value("skipped", 0), sum.value("skipped", 0) == 1 ? "" : "s",
                     sweeps.empty() ? std::string("not timed") : "P over the " + sweeps + " sweep");
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

std::string render_markdown(const json& j) {
  return markdown_preamble(j) + markdown_summary(j) + markdown_submission(j) + markdown_per_shape(j) + markdown_phase_times(j);
}

namespace {

// One CSV field: quoted when it holds a comma, a quote or a line break (quotes doubled); a JSON
// string as its text, null as nothing, a number as JSON writes it.
std::string csv_field(const json& v) {
  std::string text;
  if (v.is_string()) text = v.get<std::string>();
  else if (v.is_object()) text = shape_label(v);
  else if (!v.is_null()) text = v.dump();
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_line(const std::vector<json>& fields) {
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + csv_field(fields[i]);
  return line + "\r\n";
}

const json& field(const json& j, const char* key) {
  static const json null;
  return j.is_object() && j.contains(key) ? j[key] : null;
}

}  // namespace

std::string render_results_csv(const json& report) {
  std::string out = "task,precision,contender,sweep,shape,complexity,disposition,median_us,min_us,max_us,n,noise,"
                    "speedup_vs_baseline,ratio_vs_vendor,sol_fraction\r\n";
  for (const json& r : field(report, "results")) {
    const json& t = field(r, "time_us");
    out += csv_line({field(r, "task"), field(r, "precision"), field(r, "contender"), field(r, "sweep"), field(r, "shape"),
                     field(r, "complexity"), field(r, "disposition"), field(t, "median"), field(t, "min"), field(t, "max"), field(t, "n"),
                     field(t, "noise"), field(r, "speedup_vs_baseline"), field(r, "ratio_vs_vendor"), field(r, "sol_fraction")});
  }
  return out;
}

std::string render_contenders_csv(const json& report) {
  std::string out = "task,precision,contender,disposition,checks_passed,checks_total,message\r\n";
  for (const json& c : field(report, "contenders"))
    out += csv_line({field(c, "task"), field(c, "precision"), field(c, "contender"), field(c, "disposition"), field(c, "checks_passed"),
                     field(c, "checks_total"), field(c, "message")});
  return out;
}

std::string SuiteReport::table() const { return render_table(to_json()); }

std::string render_table(const json& j) {
  // The contender column fits the longest name (at least 12): two user kernels stay apart.
  std::size_t cw = 12;
  for (const auto& c : j["contenders"]) cw = std::max(cw, c["contender"].get<std::string>().size());
  std::string out = fmt::format("{:<22} {:<5} {:<{}} {:<17} {:>8} {:>8} {:>9} {:>8} {:>10}\n", "task", "prec", "contender", cw,
                                "disposition", "P", "geomean", "vs vendor", "best SOL", "median(us)");
  for (const auto& c : j["contenders"]) {
    std::string P = "-", G = "-", V = "-", S = "-", T = "-";
    for (const auto& s : j["scores"])
      if (s["task"] == c["task"] && s["precision"] == c["precision"] && s["contender"] == c["contender"] && s["sweep"] == to_string(Sweep::paper)) {
        if (!s["P"].is_null()) P = fmt::format("{:.2f}", s["P"].get<double>());
        if (!s["geomean"].is_null()) G = fmt::format("{:.2f}", s["geomean"].get<double>());
      }
    std::vector<double> vv, sol;
    double largest = 0;
    for (const auto& r : j["results"])
      if (r["task"] == c["task"] && r["precision"] == c["precision"] && r["contender"] == c["contender"]) {
        if (!r["ratio_vs_vendor"].is_null()) vv.push_back(r["ratio_vs_vendor"]);
        if (!r["sol_fraction"].is_null()) sol.push_back(r["sol_fraction"]);
        largest = r["time_us"]["median"];
      }
    if (auto g = geomean(vv)) V = fmt::format("{:.2f}", *g);
    if (!sol.empty()) S = fmt::format("{:.0f}%", 100 * *std::max_element(sol.begin(), sol.end()));
    if (largest > 0) T = fmt::format("{:.1f}", largest);
    out += fmt::format("{:<22} {:<5} {:<{}} {:<17} {:>8} {:>8} {:>9} {:>8} {:>10}\n", c["task"].get<std::string>(),
                       c["precision"].get<std::string>(), c["contender"].get<std::string>(), cw,
                       c["disposition"].get<std::string>(), P, G, V, S, T);
  }
  return out + shared_gpu_warning(j, "", "\n", "  ") + render_submission_summary(j);
}

}  // namespace mskb
