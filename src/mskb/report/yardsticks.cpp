// The three yardsticks of a row and the launch floor (see yardsticks.hpp).
#include "mskb/report/yardsticks.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "mskb/core/registry.hpp"
#include "mskb/core/scoring.hpp"
#include "mskb/protocol/vocabulary.hpp"
#include "mskb/report/cells.hpp"
#include "mskb/report/device_yardstick.hpp"

using json = nlohmann::json;

namespace mskb {

using report::array_of;
using report::num_at;
using report::shape_label;
using report::str_at;

std::optional<double> launch_floor_us(const json& device) {
  const auto f = num_at(device, "launch_floor_us");
  return f && *f > 0 ? f : std::nullopt;
}

bool is_launch_bound(const json& median_us, const std::optional<double>& floor_us) {
  return floor_us && median_us.is_number() && median_us.get<double>() > 0 && median_us.get<double>() <= kLaunchBoundFactor * *floor_us;
}

std::string launch_floor_line(const json& device) {
  const auto f = launch_floor_us(device);
  if (!f) return "Launch floor: not measured (a device measured before mskb device measured it: `mskb device --refresh`).";
  return fmt::format("Launch floor: {:.2f} us (an entry point that launches one empty kernel and synchronizes); shapes timed within "
                     "{:g}x of it ({:.2f} us) are launch-bound (marked L): P there measures launch overhead, not the kernel.",
                     *f, kLaunchBoundFactor, kLaunchBoundFactor * *f);
}

json task_vendor(const json& report, const std::string& task) {
  const json& vendors = report.is_object() ? report.value("vendors", json::object()) : json::object();
  if (vendors.is_object() && vendors.contains(task) && vendors[task].is_object()) {
    const json& v = vendors[task];
    return {{"route", str_at(v, "route")}, {"none_reason", str_at(v, "none_reason")}, {"abi_cost", str_at(v, "abi_cost")}};
  }
  const TaskSpec* spec = find_task(task);
  if (spec == nullptr) return nullptr;
  return {{"route", spec->vendor}, {"none_reason", spec->vendor_none_reason}, {"abi_cost", spec->vendor_abi_cost}};
}

json vendors_json(const std::vector<std::string>& tasks) {
  json out = json::object();
  for (const std::string& t : tasks)
    if (const json v = task_vendor(json::object(), t); !v.is_null()) out[t] = v;
  return out;
}

std::string vendor_cell(const json& vendor, const json& ratio, bool with_reason) {
  const bool none = vendor.is_object() && str_at(vendor, "route").empty();
  if (report::is_num(ratio) && !none) return report::fixed2(ratio) + (vendor.is_object() && !str_at(vendor, "abi_cost").empty() ? "*" : "");
  if (none) {
    const std::string why = str_at(vendor, "none_reason");
    return with_reason && !why.empty() ? "none: " + why : "none";
  }
  return "no vendor";
}

std::vector<std::string> vendor_notes(const json& report) {
  std::set<std::string> tasks;
  for (const json& c : array_of(report, "contenders")) tasks.insert(str_at(c, "task"));
  std::vector<std::string> out;
  for (const std::string& t : tasks) {
    const json v = task_vendor(report, t);
    if (!v.is_object()) continue;
    if (str_at(v, "route").empty())
      out.push_back(t + ": no vendor contender, none: " + (str_at(v, "none_reason").empty() ? "no reason given" : str_at(v, "none_reason")));
    else if (!str_at(v, "abi_cost").empty())
      out.push_back(t + ": * the vendor route (" + str_at(v, "route") + ") pays a cost the ABI forces: " + str_at(v, "abi_cost"));
  }
  return out;
}

json sol_by_shape(const json& report, const std::string& task, const std::string& precision, const std::string& contender,
                  const std::string& sweep) {
  const auto floor = launch_floor_us(report.is_object() ? report.value("device", json::object()) : json::object());
  std::vector<json> rows;
  for (const json& r : array_of(report, "results")) {
    if (str_at(r, "task") != task || str_at(r, "precision") != precision || str_at(r, "contender") != contender || str_at(r, "sweep") != sweep)
      continue;
    const json t = r.value("time_us", json::object()).value("median", json());
    const auto sol = num_at(r, "sol_fraction");
    rows.push_back({{"shape", shape_label(r.value("shape", json()))},
                    {"complexity", r.value("complexity", json())},
                    {"time_us", t},
                    {"sol", sol ? json(*sol) : json(nullptr)},
                    {"launch_bound", is_launch_bound(t, floor)}});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const json& a, const json& b) {
    return (a["complexity"].is_number() ? a["complexity"].get<double>() : 0) < (b["complexity"].is_number() ? b["complexity"].get<double>() : 0);
  });
  return json(rows);
}

std::string sol_cell(const json& shapes) {
  std::string out;
  for (const json& s : shapes)
    out += (out.empty() ? "" : " ") + (s["sol"].is_number() ? fmt::format("{:.0f}%", 100 * s["sol"].get<double>()) : std::string("-")) +
           (s.value("launch_bound", false) ? "L" : "");
  return out.empty() ? "-" : out;
}

namespace {

bool correct_entry(const json& c) {
  const auto d = from_string<Disposition>(str_at(c, "disposition"));
  return d && is_correct(*d);
}

// The best SOL of a task at its largest timed shape, over its correct contenders.
struct TaskDistance {
  std::string task, precision, contender, shape;
  double complexity = -1, sol = -1;
};

}  // namespace

json roofline_summary(const json& report, const CategoryOf& category_of) {
  std::set<std::tuple<std::string, std::string, std::string>> correct;
  for (const json& c : array_of(report, "contenders"))
    if (correct_entry(c)) correct.insert({str_at(c, "task"), str_at(c, "precision"), str_at(c, "contender")});
  // The largest complexity each task timed, then the best SOL there.
  std::map<std::string, double> largest;
  for (const json& r : array_of(report, "results"))
    if (const auto c = num_at(r, "complexity")) largest[str_at(r, "task")] = std::max(largest[str_at(r, "task")], *c);
  std::map<std::string, TaskDistance> best;
  for (const json& r : array_of(report, "results")) {
    const std::string task = str_at(r, "task");
    const auto c = num_at(r, "complexity");
    const auto sol = num_at(r, "sol_fraction");
    if (!c || !sol || *c < largest[task] || !correct.count({task, str_at(r, "precision"), str_at(r, "contender")})) continue;
    TaskDistance& b = best[task];
    if (*sol > b.sol) b = {task, str_at(r, "precision"), str_at(r, "contender"), shape_label(r.value("shape", json())), *c, *sol};
  }
  auto brief = [](const TaskDistance& d) {
    return json{{"task", d.task}, {"precision", d.precision}, {"contender", d.contender}, {"shape", d.shape}, {"sol", d.sol}};
  };
  std::map<std::string, std::vector<TaskDistance>> by_cat;
  for (const auto& [task, d] : best) {
    by_cat[category_of(task)].push_back(d);
    by_cat["all"].push_back(d);
  }
  json cats = json::array(), furthest = json::array();
  for (auto& [cat, ds] : by_cat) {
    std::stable_sort(ds.begin(), ds.end(), [](const TaskDistance& a, const TaskDistance& b) { return a.sol < b.sol; });
    int within = 0;
    for (const TaskDistance& d : ds) within += d.sol >= kNearRoofline;
    json f = json::array();
    for (std::size_t i = 0; i < ds.size() && i < (cat == "all" ? 5u : 3u); ++i) f.push_back(brief(ds[i]));
    if (cat == "all") furthest = f;
    else cats.push_back({{"category", cat}, {"tasks", ds.size()}, {"within", within}, {"furthest", f}});
  }
  if (by_cat.count("all")) {
    int within = 0;
    for (const TaskDistance& d : by_cat["all"]) within += d.sol >= kNearRoofline;
    cats.push_back({{"category", "all"}, {"tasks", by_cat["all"].size()}, {"within", within}, {"furthest", furthest}});
  }
  return {{"threshold", kNearRoofline}, {"categories", cats}, {"furthest", furthest}};
}

std::vector<std::string> roofline_summary_lines(const json& summary) {
  std::vector<std::string> out;
  const double th = summary.value("threshold", kNearRoofline);
  for (const json& c : array_of(summary, "categories")) {
    std::string far;
    for (const json& f : array_of(c, "furthest"))
      far += fmt::format("{}{} {} {} {} at {}", far.empty() ? "" : ", ", str_at(f, "task"), str_at(f, "precision"), str_at(f, "contender"),
                         report::percent(f.value("sol", json())), str_at(f, "shape"));
    out.push_back(fmt::format("{}: {} of {} task{} within {:.0f}% of the roofline at their largest shape{}", str_at(c, "category"),
                              c.value("within", 0), c.value("tasks", 0), c.value("tasks", 0) == 1 ? "" : "s", 100 * th,
                              far.empty() ? "" : "; furthest: " + far));
  }
  return out;
}

void add_yardsticks(json& report, const CategoryOf& category_of) {
  if (!report.is_object()) return;
  const auto floor = launch_floor_us(report.value("device", json::object()));
  std::map<std::tuple<std::string, std::string, std::string, std::string>, std::vector<double>> ratios;
  std::set<std::string> tasks;
  if (report.contains("results") && report["results"].is_array())
    for (json& r : report["results"]) {
      r["launch_bound"] = is_launch_bound(r.value("time_us", json::object()).value("median", json()), floor);
      if (const auto v = num_at(r, "ratio_vs_vendor"); v && *v > 0)
        ratios[{str_at(r, "task"), str_at(r, "precision"), str_at(r, "contender"), str_at(r, "sweep")}].push_back(*v);
    }
  for (const json& c : array_of(report, "contenders")) tasks.insert(str_at(c, "task"));
  json vendors = report.value("vendors", json::object());
  if (!vendors.is_object()) vendors = json::object();
  const json known = vendors_json(std::vector<std::string>(tasks.begin(), tasks.end()));
  for (const auto& [task, v] : known.items())
    if (!vendors.contains(task)) vendors[task] = v;
  report["vendors"] = vendors;
  if (report.contains("scores") && report["scores"].is_array())
    for (json& s : report["scores"]) {
      const std::string task = str_at(s, "task"), precision = str_at(s, "precision"), contender = str_at(s, "contender"), sweep = str_at(s, "sweep");
      const auto it = ratios.find({task, precision, contender, sweep});
      const auto g = it != ratios.end() ? geomean(it->second) : std::nullopt;
      s["vs_vendor"] = g ? json(*g) : json(nullptr);
      s["vendor"] = vendor_cell(task_vendor(report, task), s["vs_vendor"]);
      s["sol_by_shape"] = sol_by_shape(report, task, precision, contender, sweep);
    }
  report["roofline_summary"] = roofline_summary(report, category_of);
  add_device_yardstick(report);  // each score's P on device time
}

}  // namespace mskb
