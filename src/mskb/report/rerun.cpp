// The comparison of a report with its rerun and the table its renderings show (see rerun.hpp).
#include "mskb/report/rerun.hpp"

#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "mskb/protocol/vocabulary.hpp"
#include "mskb/report/cells.hpp"
#include "mskb/report/numbers.hpp"

using json = nlohmann::json;

namespace mskb {

using report::array_of;
using report::shape_label;
using report::str_at;

namespace {

using Key = std::tuple<std::string, std::string, std::string>;  // task, precision, contender

std::map<Key, const json*> contenders_by_key(const json& report) {
  std::map<Key, const json*> out;
  for (const json& c : array_of(report, "contenders"))
    if (c.is_object()) out[{str_at(c, "task"), str_at(c, "precision"), str_at(c, "contender")}] = &c;
  return out;
}

// Median times by (task, precision, contender, sweep) and shape label.
using Times = std::map<std::tuple<std::string, std::string, std::string, std::string>, std::map<std::string, double>>;
Times times_of(const json& report) {
  Times out;
  for (const json& r : array_of(report, "results")) {
    if (!r.is_object() || !r.contains("time_us") || !r["time_us"].is_object()) continue;
    const json& m = r["time_us"].value("median", json());
    if (!m.is_number() || m.get<double>() <= 0) continue;
    out[{str_at(r, "task"), str_at(r, "precision"), str_at(r, "contender"), str_at(r, "sweep")}][shape_label(r.value("shape", json()))] =
        m.get<double>();
  }
  return out;
}

json side_of(const json& row_side, const json* contender) {
  json s = {{"disposition", row_side["disposition"]}, {"correct", row_side["correct"]}};
  s["checks_passed"] = contender ? contender->value("checks_passed", json()) : json(nullptr);
  s["checks_total"] = contender ? contender->value("checks_total", json()) : json(nullptr);
  s["message"] = contender ? contender->value("message", json("")) : json("");
  return s;
}

json device_name(const json& report) {
  return report.contains("device") && report["device"].is_object() ? report["device"].value("name", json("?")) : json("?");
}

json reproduce_of(const json& report) {
  return report.contains("reproduce") && report["reproduce"].is_object() ? report["reproduce"] : json::object();
}

json run_side(const json& report) {
  const json r = reproduce_of(report);
  return {{"device", device_name(report)},
          {"commit", r.contains("tool") && r["tool"].is_object() ? r["tool"].value("commit", json()) : json(nullptr)},
          {"sm_clock_mhz", r.value("sm_clock_mhz", json())},
          {"partial", report.value("partial", false)}};
}

bool outside(double ratio, double tolerance) { return std::fabs(ratio - 1.0) > tolerance * (1 + 1e-9); }

std::string fmt_ratio(double r) { return fmt::format("x{:.3g}", r); }

}  // namespace

json rerun_comparison(const json& old_report, const json& new_report, double tolerance) {
  std::vector<std::string> sweeps = report_sweeps(old_report);
  const bool check_only = sweeps.empty();
  const std::vector<std::string> labels = {"report", "rerun"};
  // compare_data matches the entries and computes P and time ratios, one sweep at a time.
  std::vector<json> pairs;
  for (const std::string& w : check_only ? std::vector<std::string>{to_string(Sweep::paper)} : sweeps)
    pairs.push_back(compare_data({old_report, new_report}, labels, w)["pairs"][0]);
  const auto old_c = contenders_by_key(old_report), new_c = contenders_by_key(new_report);
  const Times old_t = times_of(old_report), new_t = times_of(new_report);
  auto find = [](const std::map<Key, const json*>& m, const Key& k) -> const json* {
    const auto it = m.find(k);
    return it == m.end() ? nullptr : it->second;
  };
  json entries = json::array();
  int reproduced = 0, differ = 0;
  std::vector<std::string> differing;
  for (std::size_t i = 0; i < pairs.front()["rows"].size(); ++i) {
    const json& row = pairs.front()["rows"][i];
    const std::string task = row["task"], precision = row["precision"];
    const std::string ca = row["a"]["contender"], cb = row["b"]["contender"];
    const Key ka{task, precision, ca}, kb{task, precision, cb};
    json e = {{"task", task}, {"precision", precision}, {"contender", row["contender"]}};
    e["old"] = side_of(row["a"], find(old_c, ka));
    e["new"] = side_of(row["b"], find(new_c, kb));
    json reasons = json::array();
    const bool correct_a = row["a"]["correct"].get<bool>(), correct_b = row["b"]["correct"].get<bool>();
    if (correct_a != correct_b) {
      const json& bad = correct_a ? e["new"] : e["old"];
      const std::string msg = bad.value("message", std::string());
      reasons.push_back(fmt::format("correct in the {} ({}), not in the {} ({}{})", correct_a ? "report" : "rerun",
                                    (correct_a ? e["old"] : e["new"])["disposition"].get<std::string>(), correct_a ? "rerun" : "report",
                                    bad["disposition"].get<std::string>(), msg.empty() ? "" : ": " + msg));
    } else if (!correct_a && row["a"]["disposition"] != row["b"]["disposition"]) {
      reasons.push_back(fmt::format("disposition {} in the report, {} in the rerun", row["a"]["disposition"].get<std::string>(),
                                    row["b"]["disposition"].get<std::string>()));
    }
    json per_sweep = json::array();
    for (std::size_t w = 0; !check_only && w < sweeps.size(); ++w) {
      // The same entry in this sweep's comparison (the rows come in the same order and matching).
      const json* r = nullptr;
      for (const json& x : pairs[w]["rows"])
        if (x["task"] == row["task"] && x["precision"] == row["precision"] && x["a"]["contender"] == ca && x["b"]["contender"] == cb) r = &x;
      if (r == nullptr) continue;
      const auto ot = old_t.find({task, precision, ca, sweeps[w]});
      if (ot == old_t.end() && !(*r)["a"]["P"].is_number()) continue;  // not timed in this sweep by the report
      json s = {{"sweep", sweeps[w]}, {"P_old", (*r)["a"]["P"]}, {"P_new", (*r)["b"]["P"]}, {"P_ratio", (*r)["P_ratio"]},
                {"time_ratio", (*r)["time_ratio"].is_number() && (*r)["time_ratio"].get<double>() > 0 ? json(1.0 / (*r)["time_ratio"].get<double>())
                                                                                                        : json(nullptr)},
                {"shapes", (*r)["shapes"]}, {"worst_shape", nullptr}};
      // The shape furthest from the report's time.
      const auto nt = new_t.find({task, precision, cb, sweeps[w]});
      if (ot != old_t.end() && nt != new_t.end()) {
        double worst = 1;
        std::string worst_shape;
        for (const auto& [shape, t_old] : ot->second) {
          const auto t_new = nt->second.find(shape);
          if (t_new == nt->second.end()) continue;
          const double ratio = t_new->second / t_old;
          if (worst_shape.empty() || std::fabs(std::log(ratio)) > std::fabs(std::log(worst))) {
            worst = ratio;
            worst_shape = shape;
          }
        }
        if (!worst_shape.empty()) s["worst_shape"] = {{"shape", worst_shape}, {"ratio", worst}};
      }
      if (correct_a && correct_b) {
        if (ot != old_t.end() && (s["shapes"].get<int>() == 0 || !s["time_ratio"].is_number())) {
          reasons.push_back(sweeps[w] + ": no shape timed in both");
        } else if (s["time_ratio"].is_number() && outside(s["time_ratio"].get<double>(), tolerance)) {
          std::string worst;
          if (s["worst_shape"].is_object())
            worst = fmt::format("; furthest {}: {}", s["worst_shape"]["shape"].get<std::string>(), fmt_ratio(s["worst_shape"]["ratio"].get<double>()));
          reasons.push_back(fmt::format("{}: median time {} the report's (geometric mean over {} shape{}{})", sweeps[w],
                                        fmt_ratio(s["time_ratio"].get<double>()), s["shapes"].get<int>(), s["shapes"].get<int>() == 1 ? "" : "s",
                                        worst));
        }
        if (s["P_old"].is_number() && !s["P_new"].is_number()) {
          reasons.push_back(fmt::format("{}: P {:.2f} in the report, none in the rerun", sweeps[w], s["P_old"].get<double>()));
        } else if (s["P_ratio"].is_number() && outside(s["P_ratio"].get<double>(), tolerance)) {
          reasons.push_back(fmt::format("{}: P {:.2f} -> {:.2f} ({})", sweeps[w], s["P_old"].get<double>(), s["P_new"].get<double>(),
                                        fmt_ratio(s["P_ratio"].get<double>())));
        }
      }
      per_sweep.push_back(s);
    }
    e["sweeps"] = per_sweep;
    e["reproduced"] = reasons.empty();
    e["reasons"] = reasons;
    if (reasons.empty()) {
      ++reproduced;
    } else {
      ++differ;
    }
    entries.push_back(e);
  }
  json only_old = pairs.front()["only_a"], only_new = pairs.front()["only_b"];
  differ += static_cast<int>(only_old.size());
  // Notes: what differs about the two runs besides their numbers.
  const json o = run_side(old_report), n = run_side(new_report);
  const bool same_model = o["device"] == n["device"];
  json notes = json::array();
  if (!same_model)
    notes.push_back(fmt::format("WARNING: different GPU model: the report ran on {}, this rerun on {}", o["device"].get<std::string>(),
                                n["device"].get<std::string>()));
  if (o["commit"].is_string() && n["commit"].is_string() && o["commit"] != n["commit"])
    notes.push_back(fmt::format("the report was made by mskb commit {}, this rerun by commit {}", o["commit"].get<std::string>(),
                                n["commit"].get<std::string>()));
  if (o["partial"].get<bool>()) notes.push_back("the report is partial (its run had not finished): entries it lacks are only in the rerun");
  auto clock = [](const json& side) { return side["sm_clock_mhz"].is_object() ? side["sm_clock_mhz"].value("median", 0.0) : 0.0; };
  if (clock(o) > 0 && clock(n) > 0 && outside(clock(n) / clock(o), 0.02))
    notes.push_back(fmt::format("SM clock (median over the timed shapes): {:.0f} MHz in the report, {:.0f} MHz in the rerun", clock(o), clock(n)));
  json random_differ = json::array();
  const json ro = reproduce_of(old_report).value("settings", json::object()).value("random_shapes", json::object());
  const json rn = reproduce_of(new_report).value("settings", json::object()).value("random_shapes", json::object());
  for (auto it = ro.begin(); it != ro.end(); ++it)
    if (rn.contains(it.key()) && rn[it.key()] != it.value()) random_differ.push_back(it.key());
  if (!random_differ.empty())
    notes.push_back("the random shapes of " + std::to_string(random_differ.size()) +
                    " task(s) differ from the report's with the same shape seed (the task's size space changed): their checks are not the same");
  return {{"tolerance", tolerance},
          {"check_only", check_only},
          {"old", o},
          {"new", n},
          {"same_gpu_model", same_model},
          {"sweeps", sweeps},
          {"entries", entries},
          {"only_old", only_old},
          {"only_new", only_new},
          {"random_shapes_differ", random_differ},
          {"notes", notes},
          {"summary", {{"entries", entries.size() + only_old.size()}, {"reproduced", reproduced}, {"differ", differ}}}};
}

namespace {

std::string num3(const json& v) { return v.is_number() ? fmt::format("{:.3f}", v.get<double>()) : std::string("-"); }

std::string entry_name(const json& e) {
  return e["task"].get<std::string>() + " " + e["precision"].get<std::string>() + " " + e["contender"].get<std::string>();
}

}  // namespace

std::string rerun_summary_line(const json& c) {
  const json& s = c["summary"];
  std::string out = fmt::format("reproduced {} of {} entries within {:g}%", s["reproduced"].get<int>(), s["entries"].get<int>(),
                                100 * c["tolerance"].get<double>());
  out += c["check_only"].get<bool>() ? " (correctness)" : " (correctness, median times and P)";
  if (s["differ"].get<int>() > 0) out += fmt::format("; {} differ", s["differ"].get<int>());
  if (!c["only_new"].empty()) out += fmt::format("; {} only in the rerun", c["only_new"].size());
  return out;
}

// One table row per (entry, sweep) (per entry when nothing was timed): the cells, then the result.
std::vector<std::vector<std::string>> rerun_table_rows(const json& c) {
  std::vector<std::vector<std::string>> rows;
  for (const json& e : c["entries"]) {
    const std::string result = e["reproduced"].get<bool>() ? "ok" : "DIFFERS";
    const std::string checks = fmt::format("{}/{} -> {}/{}", e["old"]["checks_passed"].dump(), e["old"]["checks_total"].dump(),
                                           e["new"]["checks_passed"].dump(), e["new"]["checks_total"].dump());
    const std::string disp = e["old"]["disposition"] == e["new"]["disposition"]
                                 ? e["old"]["disposition"].get<std::string>()
                                 : e["old"]["disposition"].get<std::string>() + " -> " + e["new"]["disposition"].get<std::string>();
    if (e["sweeps"].empty()) {
      rows.push_back({e["task"], e["precision"], e["contender"], "-", disp, checks, "-", "-", "-", "-", "-", result});
      continue;
    }
    for (const json& s : e["sweeps"])
      rows.push_back({e["task"], e["precision"], e["contender"], s["sweep"], disp, checks, report::fixed2(s["P_old"]), report::fixed2(s["P_new"]), num3(s["P_ratio"]),
                      num3(s["time_ratio"]), s["shapes"].dump(), result});
  }
  for (const json& x : c["only_old"])
    rows.push_back({x["task"], x["precision"], x["contender"], "-", x["disposition"].get<std::string>() + " -> (not run)", "-", "-", "-", "-", "-",
                    "-", "DIFFERS"});
  return rows;
}

const std::vector<std::string>& rerun_table_head() {
  static const std::vector<std::string> head = {"task",    "prec",       "contender",          "sweep",  "disposition", "checks",
                                                "P report", "P rerun",   "P new/old", "time new/old", "shapes",      "result"};
  return head;
}

std::vector<std::string> rerun_differences(const json& c) {
  std::vector<std::string> out;
  for (const json& e : c["entries"])
    for (const json& r : e["reasons"]) out.push_back(entry_name(e) + ": " + r.get<std::string>());
  for (const json& x : c["only_old"])
    out.push_back(x["task"].get<std::string>() + " " + x["precision"].get<std::string>() + " " + x["contender"].get<std::string>() +
                  ": in the report, not in the rerun");
  return out;
}

std::string rerun_heading(const json& c) {
  return fmt::format("mskb rerun: the report's run again on {} (the report: {}), tolerance {:g}%", c["new"]["device"].get<std::string>(),
                     c["old"]["device"].get<std::string>(), 100 * c["tolerance"].get<double>());
}

}  // namespace mskb
