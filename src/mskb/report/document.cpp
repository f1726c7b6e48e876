// The suite's report document: a SuiteReport's JSON (the `mskb run --json` contract), merging
// several reports into one, and the groups a merge expects (see document.hpp).
#include "mskb/report/document.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "mskb/core/registry.hpp"
#include "mskb/core/scoring.hpp"
#include "mskb/harness/reproduce.hpp"
#include "mskb/report/cells.hpp"
#include "mskb/report/device_yardstick.hpp"
#include "mskb/report/intervals.hpp"
#include "mskb/report/numbers.hpp"
#include "mskb/report/yardsticks.hpp"

using json = nlohmann::json;

namespace mskb {

using report::array_of;

namespace {

json num_or_null(double x) { return std::isfinite(x) && x > 0 ? json(x) : json(nullptr); }

}  // namespace

json report_json(const SuiteReport& report) {
  const auto& runs = report.runs;
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
    if (!r.sandbox.empty()) contenders.back()["sandbox"] = r.sandbox;  // the OS sandbox the kernel ran in (issue 40)
    if (!r.notes.empty()) contenders.back()["notes"] = r.notes;        // how it ran, where that changed its cost
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
      put_result_device_time(results.back(), t.time);  // device_us, host_share, device_samples (or why not)
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
  json out = {{"device", report.device}, {"contenders", contenders}, {"results", results}, {"scores", scores}};
  if (report.shape_seed != 0) out["shape_seed"] = report.shape_seed;
  if (report.partial) out["partial"] = true;
  add_yardsticks(out);
  add_p_intervals(out);  // P's interval from the spread model (mskb/report/intervals.hpp)
  if (!report.reproduce.is_null()) out["reproduce"] = reproduce_observed(report.reproduce, out);
  if (const auto& submission = report.submission) {
    json skipped = json::array();
    for (const SkippedFile& f : submission->skipped) skipped.push_back({{"file", f.path}, {"reason", f.reason}});
    out["submission"] = {{"dir", submission->dir}, {"kernels", submission->kernels.size()}, {"skipped", skipped}};
    out["submission_summary"] = submission_summary(out);
  }
  return out;
}

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
  // The code behind each input whose groups the merge kept (the Markdown's "Code:" line; a merged
  // report has no reproduce record of its own, so it names its inputs' commits here). A merged
  // input's own sources carry through (several: each with the groups it had there).
  std::vector<long long> kept(reports.size(), 0);
  for (const auto& o : owner) ++kept[o.second];
  json sources = json::array();
  for (std::size_t i = 0; i < reports.size(); ++i) {
    if (kept[i] == 0) continue;
    const json tool = report::tool_of(reports[i]);
    if (tool.is_object() || !reports[i].contains("sources")) {
      sources.push_back({{"tool", tool}, {"groups", kept[i]}});
      continue;
    }
    const json& inner = reports[i]["sources"];
    if (inner.is_array() && inner.size() == 1 && inner[0].is_object()) sources.push_back({{"tool", inner[0].value("tool", json())}, {"groups", kept[i]}});
    else
      for (const json& s : array_of(reports[i], "sources")) sources.push_back(s);
  }
  out["sources"] = sources;
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
  // The vendor routes the inputs recorded (a later input's first), then the yardsticks again over the merged groups.
  for (auto r = reports.rbegin(); r != reports.rend(); ++r)
    if (r->contains("vendors") && (*r)["vendors"].is_object())
      for (const auto& [task, v] : (*r)["vendors"].items())
        if (!out.contains("vendors") || !out["vendors"].contains(task)) out["vendors"][task] = v;
  add_yardsticks(out);
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

}  // namespace mskb
