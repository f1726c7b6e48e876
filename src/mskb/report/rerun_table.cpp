// The pieces every rendering of mskb rerun's comparison shows (see rerun.hpp): heading, summary
// line, table and differences. Layout only: the numbers are rerun_comparison's.
#include <cmath>

#include <fmt/format.h>

#include "mskb/report/cells.hpp"
#include "mskb/report/rerun.hpp"

using json = nlohmann::json;

namespace mskb {

namespace {

std::string num3(const json& v) { return v.is_number() ? fmt::format("{:.3f}", v.get<double>()) : std::string("-"); }

std::string entry_name(const json& e) {
  return e["task"].get<std::string>() + " " + e["precision"].get<std::string>() + " " + e["contender"].get<std::string>();
}

bool by_model(const json& c) { return c.contains("judge") && c["judge"].value("kind", "") == "model"; }

std::string verdict_of(const json& e) { return e["verdict"].get<std::string>(); }

std::string verdict_cell(const json& e) {
  const std::string v = verdict_of(e);
  return v == "reproduced" ? "ok" : v == "chance" ? "ok (chance)" : v == "host_moved" ? "host moved" : "DIFFERS";
}

// What a difference line starts with: how the entry was judged.
std::string verdict_prefix(const json& e) {
  const std::string v = verdict_of(e);
  return v == "chance" ? "outside by chance: " : v == "host_moved" ? "host moved: " : "differs: ";
}

// "commit abc1234 on NVIDIA H200" (the commit unknown: "an unknown commit").
std::string run_name(const json& side) {
  const std::string commit = side["commit"].is_string() ? "commit " + side["commit"].get<std::string>() : std::string("an unknown commit");
  return commit + " on " + side["device"].get<std::string>();
}

std::string p_cell(const json& s) {
  const std::string p = report::fixed2(s["P_old"]);
  if (!s.contains("P_interval") || !s["P_interval"].is_array()) return p;
  return fmt::format("{} [{:.2f}, {:.2f}]", p, s["P_interval"][0].get<double>(), s["P_interval"][1].get<double>());
}

std::string bound_cell(const json& c, const json& s) {
  if (!by_model(c)) return fmt::format("+-{:g}%", 100 * c["tolerance"].get<double>());
  if (!s.contains("time_bound") || !s["time_bound"].is_array()) return "-";
  return fmt::format("+-{:.1f}%", 100 * (s["time_bound"][1].get<double>() - 1));
}

}  // namespace

bool rerun_consistent(const json& c) {
  const json& s = c["summary"];
  return s.contains("consistent") ? s["consistent"].get<bool>() : s["differ"].get<int>() == 0;
}

std::string rerun_summary_line(const json& c) {
  const json& s = c["summary"];
  std::string out;
  if (by_model(c)) {
    const int chance = s.value("chance", 0), host = s.value("host_moved", 0);
    if (chance == 0)
      out = fmt::format("reproduced {} of {} entries within their intervals", s["reproduced"].get<int>(), s["entries"].get<int>());
    else
      out = fmt::format("reproduced {} of {} entries ({} within their intervals, {} outside by no more than chance gives among {} checks)",
                        s["reproduced"].get<int>(), s["entries"].get<int>(), s["within"].get<int>(), chance, s["checks"].get<int>());
    out += c["check_only"].get<bool>() ? " (correctness)" : " (correctness, median times and P; " + c["judge"]["label"].get<std::string>() + ")";
    if (host > 0)
      out += fmt::format("; {} where only the host side moved (call time beyond chance, device time within its bound)", host);
    if (s["differ"].get<int>() > 0) out += fmt::format("; {} differ", s["differ"].get<int>());
    if (s["checks"].get<int>() > 0)
      out += fmt::format("; {} of {} checks outside, {:.1f} expected by chance, {}", s["outside"].get<int>(), s["checks"].get<int>(),
                         s["expected_outside"].get<double>(),
                         s["outside"].get<int>() <= s["allowed_outside"].get<int>()
                             ? fmt::format("up to {} consistent with the report", s["allowed_outside"].get<int>())
                             : fmt::format("more than chance explains (up to {})", s["allowed_outside"].get<int>()));
    if (s.value("beyond", 0) > 0)
      out += fmt::format("; {} beyond the simultaneous bound ({:.2f}x an interval)", s["beyond"].get<int>(), s["simultaneous_factor"].get<double>());
    if (s.value("run_differs", false)) out += "; the whole run's call time differs";
    if (s["hard"].get<int>() > 0) out += fmt::format("; {} with another correctness or disposition, or not run", s["hard"].get<int>());
  } else {
    out = fmt::format("reproduced {} of {} entries within {:g}%", s["reproduced"].get<int>(), s["entries"].get<int>(),
                      100 * c["tolerance"].get<double>());
    out += c["check_only"].get<bool>() ? " (correctness)" : " (correctness, median times and P)";
    if (s["differ"].get<int>() > 0) out += fmt::format("; {} differ", s["differ"].get<int>());
  }
  if (!c["only_new"].empty()) out += fmt::format("; {} only in the rerun", c["only_new"].size());
  return out;
}

// One table row per (entry, sweep) (per entry when nothing was timed): the cells, then the result.
std::vector<std::vector<std::string>> rerun_table_rows(const json& c) {
  std::vector<std::vector<std::string>> rows;
  for (const json& e : c["entries"]) {
    const std::string result = verdict_cell(e);
    const std::string checks = fmt::format("{}/{} -> {}/{}", e["old"]["checks_passed"].dump(), e["old"]["checks_total"].dump(),
                                           e["new"]["checks_passed"].dump(), e["new"]["checks_total"].dump());
    const std::string disp = e["old"]["disposition"] == e["new"]["disposition"]
                                 ? e["old"]["disposition"].get<std::string>()
                                 : e["old"]["disposition"].get<std::string>() + " -> " + e["new"]["disposition"].get<std::string>();
    if (e["sweeps"].empty()) {
      rows.push_back({e["task"], e["precision"], e["contender"], "-", disp, checks, "-", "-", "-", "-", "-", "-", "-", result});
      continue;
    }
    for (const json& s : e["sweeps"])
      rows.push_back({e["task"], e["precision"], e["contender"], s["sweep"], disp, checks, p_cell(s), report::fixed2(s["P_new"]), num3(s["P_ratio"]),
                      num3(s["time_ratio"]), num3(s.value("time_ratio_vs_run", json())), bound_cell(c, s), s["shapes"].dump(), result});
  }
  for (const json& x : c["only_old"])
    rows.push_back({x["task"], x["precision"], x["contender"], "-", x["disposition"].get<std::string>() + " -> (not run)", "-", "-", "-", "-", "-",
                    "-", "-", "-", "DIFFERS"});
  return rows;
}

const std::vector<std::string>& rerun_table_head() {
  static const std::vector<std::string> head = {"task",     "prec",      "contender",    "sweep",        "disposition", "checks", "P report",
                                                "P rerun",  "P new/old", "time new/old", "time / shift", "time bound",  "shapes", "result"};
  return head;
}

std::vector<std::string> rerun_differences(const json& c) {
  std::vector<std::string> out;
  for (const json& e : c["entries"])
    for (const json& r : e["reasons"]) out.push_back(verdict_prefix(e) + entry_name(e) + ": " + r.get<std::string>());
  for (const json& x : c["only_old"])
    out.push_back("differs: " + x["task"].get<std::string>() + " " + x["precision"].get<std::string>() + " " + x["contender"].get<std::string>() +
                  ": in the report, not in the rerun");
  return out;
}

std::string rerun_heading(const json& c) {
  const std::string judge = by_model(c) ? "judged by the " + c["judge"]["label"].get<std::string>()
                                        : fmt::format("tolerance {:g}%", 100 * c["tolerance"].get<double>());
  return fmt::format("mskb rerun: the report ({}) run again ({}), {}", run_name(c["old"]), run_name(c["new"]), judge);
}

}  // namespace mskb
