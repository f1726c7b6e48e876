// The numbers of `mskb report` and `mskb compare` (see numbers.hpp).
#include "mskb/report/numbers.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

#include "mskb/core/registry.hpp"
#include "mskb/core/scoring.hpp"
#include "mskb/protocol/vocabulary.hpp"
#include "mskb/report/cells.hpp"
#include "mskb/report/device_yardstick.hpp"
#include "mskb/report/intervals.hpp"
#include "mskb/report/yardsticks.hpp"

using json = nlohmann::json;

namespace mskb {

using report::array_of;
using report::num_at;
using report::shape_label;
using report::str_at;


namespace {

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

bool correct_disposition(const std::string& d) {
  const auto x = from_string<Disposition>(d);
  return x && is_correct(*x);
}

int precision_rank(const std::string& p) { return p == "fp32" ? 0 : p == "bf16" ? 1 : 2; }

std::optional<double> median(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::optional<double> mean(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  double s = 0;
  for (const double x : v) s += x;
  return s / static_cast<double>(v.size());
}

std::vector<double> positive(const std::vector<double>& v) {
  std::vector<double> out;
  for (const double x : v)
    if (x > 0 && std::isfinite(x)) out.push_back(x);
  return out;
}

void require_report(const json& run, const std::string& what) {
  if (!run.is_object() || !run.contains("contenders") || !run["contenders"].is_array() || !run.contains("device"))
    throw std::invalid_argument(what + " is not an mskb run/check JSON report (no \"device\" and \"contenders\")");
}

using Key = std::tuple<std::string, std::string, std::string>;  // task, precision, contender

Key key_of(const json& e) { return {str_at(e, "task"), str_at(e, "precision"), str_at(e, "contender")}; }

// The per-sweep numbers of every (task, precision, contender): P and geomean from "scores",
// vendor ratio and SOL from "results".
struct SweepNumbers {
  std::optional<double> P, geomean, p_device;
  json p_device_interval;  // [lo, hi] or null (device_yardstick.hpp)
  std::vector<double> vendor, sol;
  int shapes = 0;
};

std::map<Key, std::map<std::string, SweepNumbers>> sweep_numbers(const json& run) {
  std::map<Key, std::map<std::string, SweepNumbers>> out;
  for (const json& s : array_of(run, "scores")) {
    SweepNumbers& n = out[key_of(s)][str_at(s, "sweep")];
    n.P = num_at(s, "P");
    n.geomean = num_at(s, "geomean");
    n.p_device = num_at(s, "p_device");
    n.p_device_interval = s.value("p_device_interval", json());
  }
  for (const json& r : array_of(run, "results")) {
    SweepNumbers& n = out[key_of(r)][str_at(r, "sweep")];
    ++n.shapes;
    if (const auto v = num_at(r, "ratio_vs_vendor")) n.vendor.push_back(*v);
    if (const auto v = num_at(r, "sol_fraction")) n.sol.push_back(*v);
  }
  return out;
}

std::string kind_name(const std::string& contender) { return to_string(contender_kind(contender)); }
int kind_rank(const std::string& contender) { return static_cast<int>(contender_kind(contender)); }

// Entries in presentation order.
bool entry_less(const json& a, const json& b) {
  const auto ka = std::make_tuple(str_at(a, "category"), str_at(a, "task"), precision_rank(str_at(a, "precision")), str_at(a, "precision"),
                                  kind_rank(str_at(a, "contender")), str_at(a, "contender"));
  const auto kb = std::make_tuple(str_at(b, "category"), str_at(b, "task"), precision_rank(str_at(b, "precision")), str_at(b, "precision"),
                                  kind_rank(str_at(b, "contender")), str_at(b, "contender"));
  return ka < kb;
}

json entries_of(const json& run, const CategoryOf& category_of) {
  const auto numbers = sweep_numbers(run);
  const auto intervals = p_intervals(run);
  json entries = json::array();
  for (const json& c : array_of(run, "contenders")) {
    const std::string disposition = str_at(c, "disposition");
    json e = {{"task", str_at(c, "task")},
              {"precision", str_at(c, "precision")},
              {"category", category_of(str_at(c, "task"))},
              {"contender", str_at(c, "contender")},
              {"kind", kind_name(str_at(c, "contender"))},
              {"disposition", disposition},
              {"correct", correct_disposition(disposition)},
              {"expect", c.contains("expect") && c["expect"].is_string() ? c["expect"] : json(nullptr)},
              {"checks_passed", c.value("checks_passed", 0)},
              {"checks_total", c.value("checks_total", 0)},
              {"message", str_at(c, "message")},
              {"gpu", c.contains("gpu") && c["gpu"].is_string() ? c["gpu"] : json(nullptr)},
              {"sweeps", json::object()},
              {"vendor", task_vendor(run, str_at(c, "task"))}};
    if (c.value("timing_pending", false)) e["timing_pending"] = true;
    const auto it = numbers.find(key_of(c));
    if (it != numbers.end())
      for (const auto& [sweep, n] : it->second) {
        if (sweep.empty()) continue;
        const auto sol = positive(n.sol);
        e["sweeps"][sweep] = {{"P", opt(n.P)},
                              {"geomean", opt(n.geomean)},
                              {"vendor_ratio", opt(geomean(positive(n.vendor)))},
                              {"median_sol", opt(median(sol))},
                              {"best_sol", sol.empty() ? json(nullptr) : json(*std::max_element(sol.begin(), sol.end()))},
                              {"shapes", n.shapes},
                              {"p_device", opt(n.p_device)},
                              {"p_device_interval", n.p_device_interval},
                              {"sol_by_shape", sol_by_shape(run, str_at(c, "task"), str_at(c, "precision"), str_at(c, "contender"), sweep)}};
        const Interval* iv = find_interval(intervals, {str_at(c, "task"), str_at(c, "precision"), str_at(c, "contender"), sweep});
        if (iv != nullptr && n.P) e["sweeps"][sweep]["P_interval"] = {*n.P * std::exp(-iv->half_log), *n.P * std::exp(iv->half_log)};
      }
    entries.push_back(std::move(e));
  }
  std::vector<json> sorted(entries.begin(), entries.end());
  std::stable_sort(sorted.begin(), sorted.end(), entry_less);
  return json(sorted);
}

// The value of an entry's sweep field, when the entry has that sweep and the field is a number.
std::optional<double> sweep_value(const json& e, const std::string& sweep, const char* field) {
  if (!e.contains("sweeps") || !e["sweeps"].contains(sweep)) return std::nullopt;
  return num_at(e["sweeps"][sweep], field);
}

json overview_row(const std::vector<const json*>& es, const std::optional<std::string>& sweep) {
  int correct = 0;
  std::vector<std::optional<double>> p_for_fast;
  std::vector<double> ps, vendor, sol;
  for (const json* e : es) {
    const bool ok = (*e)["correct"].get<bool>();
    correct += ok;
    std::optional<double> P;
    if (sweep && ok) {
      P = sweep_value(*e, *sweep, "P");
      if (P) ps.push_back(*P);
      if (const auto v = sweep_value(*e, *sweep, "vendor_ratio")) vendor.push_back(*v);
      if (const auto v = sweep_value(*e, *sweep, "median_sol")) sol.push_back(*v);
    }
    p_for_fast.push_back(P);
  }
  const SuiteSummary s = summarize_suite(p_for_fast);
  const double n = static_cast<double>(es.size());
  json row = {{"sweep", sweep ? json(*sweep) : json(nullptr)},
              {"entries", es.size()},
              {"correct", correct},
              {"share_correct", es.empty() ? json(nullptr) : json(correct / n)},
              {"fast_1", sweep ? json(s.fast_1) : json(nullptr)},
              {"fast_1_5", sweep ? json(s.fast_1_5) : json(nullptr)},
              {"fast_2", sweep ? json(s.fast_2) : json(nullptr)},
              {"mean_P", opt(mean(ps))},
              {"geomean_P", opt(geomean(positive(ps)))},
              {"vendor_ratio", opt(geomean(positive(vendor)))},
              {"median_sol", opt(median(sol))}};
  return row;
}

json overview_of(const json& entries, const std::vector<std::string>& sweeps) {
  std::set<std::string> categories;
  std::map<std::string, int> kinds;  // name -> rank
  for (const json& e : entries) {
    categories.insert(e["category"].get<std::string>());
    kinds[e["kind"].get<std::string>()] = kind_rank(e["contender"].get<std::string>());
  }
  std::vector<std::string> kind_order;
  for (const auto& [k, r] : kinds) kind_order.push_back(k);
  std::sort(kind_order.begin(), kind_order.end(), [&](const std::string& a, const std::string& b) { return kinds[a] < kinds[b]; });
  std::vector<std::string> cats(categories.begin(), categories.end());
  cats.push_back("all");
  std::vector<std::optional<std::string>> sw;
  for (const auto& s : sweeps) sw.emplace_back(s);
  if (sw.empty()) sw.emplace_back(std::nullopt);
  json out = json::array();
  for (const auto& sweep : sw)
    for (const auto& cat : cats)
      for (const auto& kind : kind_order) {
        std::vector<const json*> es;
        for (const json& e : entries)
          if ((cat == "all" || e["category"] == cat) && e["kind"] == kind) es.push_back(&e);
        if (es.empty()) continue;
        json row = overview_row(es, sweep);
        row["category"] = cat;
        row["kind"] = kind;
        out.push_back(std::move(row));
      }
  return out;
}

json groups_of(const json& run, const json& entries) {
  // Group order follows the entries'.
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, json> groups;
  for (const json& e : entries) {
    const auto g = std::make_pair(e["task"].get<std::string>(), e["precision"].get<std::string>());
    if (!groups.count(g)) {
      order.push_back(g);
      groups[g] = {{"task", g.first},       {"precision", g.second},       {"category", e["category"]},
                   {"roofline", json::array()}, {"series", json::array()}, {"failures", json::array()}};
    }
    json& G = groups[g];
    G["series"].push_back({{"contender", e["contender"]}, {"kind", e["kind"]}, {"points", json::array()}});
    if (!e["correct"].get<bool>()) {
      const json expect = e["expect"];
      G["failures"].push_back({{"contender", e["contender"]},
                               {"disposition", e["disposition"]},
                               {"message", e["message"]},
                               {"checks_passed", e["checks_passed"]},
                               {"checks_total", e["checks_total"]},
                               {"expect", expect},
                               {"as_expected", expect.is_string() && expect == e["disposition"]}});
    }
  }
  std::map<std::pair<std::string, std::string>, std::set<std::string>> roofline_seen;
  const auto floor = launch_floor_us(run.value("device", json::object()));
  for (const json& r : array_of(run, "results")) {
    const auto g = std::make_pair(str_at(r, "task"), str_at(r, "precision"));
    const auto it = groups.find(g);
    if (it == groups.end()) continue;
    json& G = it->second;
    const std::string shape = shape_label(r.value("shape", json()));
    const std::string sweep = str_at(r, "sweep");
    const json complexity = r.contains("complexity") && r["complexity"].is_number() ? r["complexity"] : json(nullptr);
    for (json& s : G["series"])
      if (s["contender"] == str_at(r, "contender")) {
        const json& t = r.value("time_us", json::object());
        s["points"].push_back({{"sweep", sweep},
                               {"shape", shape},
                               {"complexity", complexity},
                               {"time_us", opt(num_at(t, "median"))},
                               {"noise", opt(num_at(t, "noise"))},
                               {"speedup", opt(num_at(r, "speedup_vs_baseline"))},
                               {"vendor_ratio", opt(num_at(r, "ratio_vs_vendor"))},
                               {"sol", opt(num_at(r, "sol_fraction"))},
                               {"launch_bound", is_launch_bound(t.value("median", json()), floor)},
                               {"device_us", opt(num_at(r, "device_us"))},
                               {"host_share", opt(num_at(r, "host_share"))},
                               {"host_bound", is_host_bound(r)}});
      }
    const auto roof = num_at(r, "roofline_us");
    if (roof && *roof > 0 && roofline_seen[g].insert(sweep + "|" + shape).second)
      G["roofline"].push_back({{"sweep", sweep}, {"shape", shape}, {"complexity", complexity}, {"us", *roof}});
  }
  auto by_complexity = [](const json& a, const json& b) {
    const double ca = a["complexity"].is_number() ? a["complexity"].get<double>() : 0;
    const double cb = b["complexity"].is_number() ? b["complexity"].get<double>() : 0;
    return ca < cb;
  };
  json out = json::array();
  for (const auto& g : order) {
    json& G = groups[g];
    std::vector<json> roof(G["roofline"].begin(), G["roofline"].end());
    std::stable_sort(roof.begin(), roof.end(), by_complexity);
    G["roofline"] = roof;
    for (json& s : G["series"]) {
      std::vector<json> pts(s["points"].begin(), s["points"].end());
      std::stable_sort(pts.begin(), pts.end(), by_complexity);
      s["points"] = pts;
    }
    out.push_back(std::move(G));
  }
  return out;
}

}  // namespace

std::vector<std::string> report_sweeps(const json& run) {
  std::set<std::string> names;
  for (const json& s : array_of(run, "scores"))
    if (!str_at(s, "sweep").empty()) names.insert(str_at(s, "sweep"));
  std::vector<std::string> out(names.begin(), names.end());
  const std::string paper = to_string(Sweep::paper);
  std::stable_partition(out.begin(), out.end(), [&](const std::string& s) { return s == paper; });
  return out;
}

std::string timing_overlap_note(const json& device) {
  int overlap = 1;
  if (device.is_object())
    if (const auto o = device.find("timing_overlap"); o != device.end() && o->is_number_integer()) overlap = o->get<int>();
  if (overlap <= 1) return "";
  return "This run timed " + std::to_string(overlap) + " contenders per GPU at once (--timing-overlap " + std::to_string(overlap) +
         "): the others keep their CUDA contexts open, idle behind the GPU lock, while one times, so most of these PIDs are the "
         "run's own; --timing-overlap 1 times one at a time.";
}

json submission_summary(const json& run, const CategoryOf& category_of) {
  require_report(run, "the report");
  json candidates = json::array();
  int correct = 0;
  for (const json& e : entries_of(run, category_of))
    if (e["kind"] == to_string(ContenderKind::candidate)) {
      correct += e["correct"].get<bool>();
      candidates.push_back(e);
    }
  json rows = overview_of(candidates, report_sweeps(run));
  for (json& r : rows) r.erase("kind");
  const json& sub = run.value("submission", json::object());
  return {{"kernels", candidates.size()},
          {"correct", correct},
          {"skipped", sub.is_object() ? array_of(sub, "skipped").size() : 0},
          {"rows", rows}};
}

json run_report_data(const json& run, const CategoryOf& category_of) {
  require_report(run, "the report");
  const json entries = entries_of(run, category_of);
  const std::vector<std::string> sweeps = report_sweeps(run);
  std::set<std::pair<std::string, std::string>> groups;
  std::set<std::string> tasks, categories;
  int correct = 0;
  for (const json& e : entries) {
    groups.insert({e["task"].get<std::string>(), e["precision"].get<std::string>()});
    tasks.insert(e["task"].get<std::string>());
    categories.insert(e["category"].get<std::string>());
    correct += e["correct"].get<bool>();
  }
  int shared = 0;
  for (const json& r : array_of(run, "results"))
    if (r.contains("gpu_others") && r["gpu_others"].is_number_integer() && r["gpu_others"].get<int>() > 0) ++shared;
  json summary = {{"contenders", entries.size()},
                  {"correct", correct},
                  {"groups", groups.size()},
                  {"tasks", tasks.size()},
                  {"timed_shapes", array_of(run, "results").size()},
                  {"sweeps", sweeps},
                  {"shape_seed", run.contains("shape_seed") ? run["shape_seed"] : json(nullptr)},
                  {"partial", run.value("partial", false)},
                  {"incomplete_groups", array_of(run, "incomplete_groups")},
                  {"shared_gpu_shapes", shared},
                  {"categories", std::vector<std::string>(categories.begin(), categories.end())},
                  {"launch_floor_us", opt(launch_floor_us(run["device"]))},
                  {"roofline", roofline_summary(run, category_of)},
                  {"device_time", device_time_summary(run)},
                  {"provenance", report::provenance_line(run)}};
  return {{"device", run["device"]},
          {"summary", summary},
          {"overview", overview_of(entries, sweeps)},
          {"entries", entries},
          {"groups", groups_of(run, entries)}};
}

namespace {

// time_a / time_b over the shapes of `sweep` both reports timed for the two contenders.
std::pair<std::optional<double>, int> time_ratio(const json& ra, const Key& ka, const json& rb, const Key& kb, const std::string& sweep) {
  std::map<std::string, double> ta;
  for (const json& r : array_of(ra, "results"))
    if (key_of(r) == ka && str_at(r, "sweep") == sweep)
      if (const auto t = num_at(r.value("time_us", json::object()), "median"); t && *t > 0) ta[shape_label(r.value("shape", json()))] = *t;
  std::vector<double> ratios;
  for (const json& r : array_of(rb, "results"))
    if (key_of(r) == kb && str_at(r, "sweep") == sweep)
      if (const auto t = num_at(r.value("time_us", json::object()), "median"); t && *t > 0) {
        const auto it = ta.find(shape_label(r.value("shape", json())));
        if (it != ta.end()) ratios.push_back(it->second / *t);
      }
  return {geomean(ratios), static_cast<int>(ratios.size())};
}

json side(const json& e, const std::string& sweep) {
  return {{"contender", e["contender"]},
          {"disposition", e["disposition"]},
          {"correct", e["correct"]},
          {"P", e["correct"].get<bool>() ? opt(sweep_value(e, sweep, "P")) : json(nullptr)},
          {"vendor_ratio", e["correct"].get<bool>() ? opt(sweep_value(e, sweep, "vendor_ratio")) : json(nullptr)}};
}

json compare_categories(const json& rows) {
  std::set<std::string> cats;
  std::map<std::string, int> kinds;
  for (const json& r : rows) {
    cats.insert(r["category"].get<std::string>());
    kinds[r["kind"].get<std::string>()] = kind_rank(r["a"]["contender"].get<std::string>());
  }
  std::vector<std::string> kind_order;
  for (const auto& [k, rank] : kinds) kind_order.push_back(k);
  std::sort(kind_order.begin(), kind_order.end(), [&](const std::string& a, const std::string& b) { return kinds[a] < kinds[b]; });
  std::vector<std::string> order(cats.begin(), cats.end());
  order.push_back("all");
  json out = json::array();
  for (const auto& cat : order)
    for (const auto& kind : kind_order) {
      int n = 0, ca = 0, cb = 0;
      std::vector<double> pa, pb, pratio, va, vb, tr;
      for (const json& r : rows) {
        if ((cat != "all" && r["category"] != cat) || r["kind"] != kind) continue;
        ++n;
        ca += r["a"]["correct"].get<bool>();
        cb += r["b"]["correct"].get<bool>();
        if (r["a"]["P"].is_number() && r["b"]["P"].is_number()) {
          pa.push_back(r["a"]["P"]);
          pb.push_back(r["b"]["P"]);
          if (r["P_ratio"].is_number()) pratio.push_back(r["P_ratio"]);
        }
        if (r["a"]["vendor_ratio"].is_number() && r["b"]["vendor_ratio"].is_number()) {
          va.push_back(r["a"]["vendor_ratio"]);
          vb.push_back(r["b"]["vendor_ratio"]);
        }
        if (r["time_ratio"].is_number()) tr.push_back(r["time_ratio"]);
      }
      if (n == 0) continue;
      const auto ma = mean(pa), mb = mean(pb);
      const auto ga = geomean(positive(va)), gb = geomean(positive(vb));
      out.push_back({{"category", cat},
                     {"kind", kind},
                     {"rows", n},
                     {"both_P", pa.size()},
                     {"correct_a", ca},
                     {"correct_b", cb},
                     {"mean_P_a", opt(ma)},
                     {"mean_P_b", opt(mb)},
                     {"dP", ma && mb ? json(*mb - *ma) : json(nullptr)},
                     {"geomean_P_ratio", opt(geomean(positive(pratio)))},
                     {"vendor_a", opt(ga)},
                     {"vendor_b", opt(gb)},
                     {"d_vendor", ga && gb ? json(*gb - *ga) : json(nullptr)},
                     {"time_ratio", opt(geomean(positive(tr)))}});
    }
  return out;
}

json compare_pair(const json& ra, const json& ea, const json& rb, const json& eb, const std::string& sweep) {
  std::map<Key, const json*> ia, ib;
  for (const json& e : ea) ia[key_of(e)] = &e;
  for (const json& e : eb) ib[key_of(e)] = &e;
  std::vector<std::pair<const json*, const json*>> matched;
  std::set<Key> used_a, used_b;
  for (const json& e : ea)
    if (const auto it = ib.find(key_of(e)); it != ib.end()) {
      matched.push_back({&e, it->second});
      used_a.insert(key_of(e));
      used_b.insert(it->first);
    }
  // One unmatched candidate on each side of a group: the same task by two submissions.
  std::map<std::pair<std::string, std::string>, std::pair<std::vector<const json*>, std::vector<const json*>>> loose;
  for (const json& e : ea)
    if (!used_a.count(key_of(e)) && e["kind"] == "candidate") loose[{e["task"].get<std::string>(), e["precision"].get<std::string>()}].first.push_back(&e);
  for (const json& e : eb)
    if (!used_b.count(key_of(e)) && e["kind"] == "candidate") loose[{e["task"].get<std::string>(), e["precision"].get<std::string>()}].second.push_back(&e);
  for (const auto& [g, sides] : loose)
    if (sides.first.size() == 1 && sides.second.size() == 1) {
      matched.push_back({sides.first[0], sides.second[0]});
      used_a.insert(key_of(*sides.first[0]));
      used_b.insert(key_of(*sides.second[0]));
    }
  std::stable_sort(matched.begin(), matched.end(), [](const auto& x, const auto& y) { return entry_less(*x.first, *y.first); });
  json rows = json::array(), correctness = json::array(), only_a = json::array(), only_b = json::array();
  for (const auto& [a, b] : matched) {
    const json sa = side(*a, sweep), sb = side(*b, sweep);
    const std::string name = (*a)["contender"] == (*b)["contender"]
                                 ? (*a)["contender"].get<std::string>()
                                 : (*a)["contender"].get<std::string>() + " / " + (*b)["contender"].get<std::string>();
    const auto [tr, shapes] = time_ratio(ra, key_of(*a), rb, key_of(*b), sweep);
    const bool both_p = sa["P"].is_number() && sb["P"].is_number();
    const bool both_v = sa["vendor_ratio"].is_number() && sb["vendor_ratio"].is_number();
    json row = {{"task", (*a)["task"]},
                {"precision", (*a)["precision"]},
                {"category", (*a)["category"]},
                {"contender", name},
                {"kind", (*a)["kind"]},
                {"a", sa},
                {"b", sb},
                {"dP", both_p ? json(sb["P"].get<double>() - sa["P"].get<double>()) : json(nullptr)},
                {"P_ratio", both_p && sa["P"].get<double>() > 0 ? json(sb["P"].get<double>() / sa["P"].get<double>()) : json(nullptr)},
                {"d_vendor", both_v ? json(sb["vendor_ratio"].get<double>() - sa["vendor_ratio"].get<double>()) : json(nullptr)},
                {"time_ratio", (*a)["correct"].get<bool>() && (*b)["correct"].get<bool>() ? opt(tr) : json(nullptr)},
                {"shapes", shapes}};
    if (sa["correct"] != sb["correct"]) correctness.push_back(row);
    rows.push_back(std::move(row));
  }
  auto brief = [](const json& e) {
    return json{{"task", e["task"]}, {"precision", e["precision"]}, {"contender", e["contender"]}, {"disposition", e["disposition"]}};
  };
  for (const json& e : ea)
    if (!used_a.count(key_of(e))) only_a.push_back(brief(e));
  for (const json& e : eb)
    if (!used_b.count(key_of(e))) only_b.push_back(brief(e));
  return {{"rows", rows}, {"categories", compare_categories(rows)}, {"correctness", correctness}, {"only_a", only_a}, {"only_b", only_b}};
}

}  // namespace

json compare_data(const std::vector<json>& runs, const std::vector<std::string>& labels, const std::string& sweep,
                  const CategoryOf& category_of) {
  if (runs.size() < 2) throw std::invalid_argument("compare: give at least two reports");
  if (labels.size() != runs.size()) throw std::invalid_argument("compare: one label per report");
  std::vector<json> entries;
  json devices = json::array(), provenance = json::array();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    require_report(runs[i], labels[i]);
    entries.push_back(entries_of(runs[i], category_of));
    devices.push_back(runs[i]["device"].is_object() ? runs[i]["device"].value("name", std::string("?")) : std::string("?"));
    provenance.push_back(report::provenance_line(runs[i]));
  }
  json pairs = json::array();
  for (std::size_t i = 1; i < runs.size(); ++i) {
    json p = compare_pair(runs[0], entries[0], runs[i], entries[i], sweep);
    p["a"] = 0;
    p["b"] = i;
    pairs.push_back(std::move(p));
  }
  return {{"labels", labels}, {"sweep", sweep}, {"devices", devices}, {"provenance", provenance}, {"pairs", pairs}};
}

}  // namespace mskb
