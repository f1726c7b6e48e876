// The comparison of a report with its rerun (see rerun.hpp): matching, ratios, and the judgement,
// by the spread model's intervals (mskb/core/spread.hpp) or a flat tolerance. The table and lines
// every rendering shows are rerun_table.cpp's.
#include "mskb/report/rerun.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "mskb/protocol/vocabulary.hpp"
#include "mskb/report/cells.hpp"
#include "mskb/report/device_yardstick.hpp"
#include "mskb/report/intervals.hpp"
#include "mskb/report/numbers.hpp"
#include "rerun_shift.hpp"

using json = nlohmann::json;

namespace mskb {

using report::array_of;
using report::str_at;

namespace {

using Key = std::tuple<std::string, std::string, std::string>;  // task, precision, contender
using rerun_detail::BandShifts;
using rerun_detail::geo_ratio;
using rerun_detail::run_shift;
using rerun_detail::Shapes;

// The family-wise significance of the simultaneous bound (the same 1% as the count of checks).
constexpr double kFamilyAlpha = 0.01;

std::map<Key, const json*> contenders_by_key(const json& report) {
  std::map<Key, const json*> out;
  for (const json& c : array_of(report, "contenders"))
    if (c.is_object()) out[{str_at(c, "task"), str_at(c, "precision"), str_at(c, "contender")}] = &c;
  return out;
}

json side_of(const json& row_side, const json* contender) {
  json s = {{"disposition", row_side["disposition"]}, {"correct", row_side["correct"]}};
  s["checks_passed"] = contender ? contender->value("checks_passed", json()) : json(nullptr);
  s["checks_total"] = contender ? contender->value("checks_total", json()) : json(nullptr);
  s["message"] = contender ? contender->value("message", json("")) : json("");
  return s;
}

const json& device_of(const json& report) {
  static const json none = json::object();
  return report.contains("device") && report["device"].is_object() ? report["device"] : none;
}

json reproduce_of(const json& report) {
  return report.contains("reproduce") && report["reproduce"].is_object() ? report["reproduce"] : json::object();
}

json run_side(const json& report) {
  const json r = reproduce_of(report);
  const json& d = device_of(report);
  const json tool = report::tool_of(report);
  return {{"device", d.value("name", json("?"))},
          {"gpu_uuid", d.contains("uuid") && d["uuid"].is_string() ? d["uuid"] : json(nullptr)},
          {"commit", tool.is_object() ? tool.value("commit", json()) : json(nullptr)},
          {"sm_clock_mhz", r.value("sm_clock_mhz", json())},
          {"launch_floor_us", d.contains("launch_floor_us") && d["launch_floor_us"].is_number() ? d["launch_floor_us"] : json(nullptr)},
          {"partial", report.value("partial", false)}};
}

bool outside(double ratio, double tolerance) { return std::fabs(ratio - 1.0) > tolerance * (1 + 1e-9); }
bool outside_log(double ratio, double half_log) { return std::fabs(std::log(ratio)) > half_log * (1 + 1e-9); }

std::string fmt_ratio(double r) { return fmt::format("x{:.3g}", r); }
std::string plus_minus(double half_log) { return fmt::format("+-{:.1f}%", 100 * (std::exp(half_log) - 1)); }

// The old shapes that the rerun timed too, as the old run's sides (device: where both carry a
// device time).
std::vector<TimedSide> shared_sides(const Shapes& o, const Shapes& n, bool device) {
  std::vector<TimedSide> sides;
  for (const auto& [label, t] : o) {
    const auto it = n.find(label);
    if (it == n.end()) continue;
    if (device && (t.device_us > 0 && it->second.device_us > 0)) sides.push_back({t.device_us, 0.0});
    if (!device) sides.push_back(t.call);
  }
  return sides;
}

TimeKind kind_of(bool device) { return device ? TimeKind::device : TimeKind::call; }

// The half-width of the geometric mean of the old shapes that the rerun timed too.
// without_common: the run's shift was taken out of the ratio (BandShifts), so the model's common
// term (the run-wide shift) is not in the bound.
double shared_half_log(const Shapes& o, const Shapes& n, const SpreadModel& m, SpreadScope scope, bool device, bool without_common = false) {
  return time_half_log(shared_sides(o, n, device), m, scope, kind_of(device), without_common);
}

// The bound of the whole run's geometric-mean ratio over every shape both runs timed: as the model
// has it, the shapes of one entry (one process) move together by rho (its own h_T without the
// common term), the entries independently of each other, and all of them by the run-wide shift
// (the common term). Over a suite the entries' own parts average out, and what is left is about
// the common term.
double run_half_log(const std::map<EntryKey, Shapes>& old_t, const std::map<EntryKey, Shapes>& new_t, const SpreadModel& m,
                    SpreadScope scope, bool device) {
  std::vector<std::pair<double, double>> parts;  // per entry: (shapes, its h_T without the common term)
  double n = 0;
  for (const auto& [key, shapes] : old_t) {
    const auto other = new_t.find(key);
    if (other == new_t.end()) continue;
    const std::vector<TimedSide> sides = shared_sides(shapes, other->second, device);
    parts.push_back({static_cast<double>(sides.size()), time_half_log(sides, m, scope, kind_of(device), true)});
    n += static_cast<double>(sides.size());
  }
  double quad = 0;
  for (const auto& [count, h] : parts)
    if (n > 0) quad += (h * count / n) * (h * count / n);
  const double common = m.table(scope).common;
  return std::sqrt(quad + common * common);
}

struct Moved {
  std::string text;
  std::optional<bool> kernel;  // device time outside its bound (unknown without device times)
};

// What moved, for an entry outside its interval: device against call time when both runs
// measured it, which side of P (baseline or contender), and the shapes that moved most.
Moved what_moved(const Shapes& o, const Shapes& n, const Shapes* base_o, const Shapes* base_n, bool p_moved, const SpreadModel& m,
                 SpreadScope scope) {
  std::vector<std::string> parts;
  Moved out;
  const auto [dev, dev_shapes] = geo_ratio(o, n, true);
  if (dev_shapes > 0) {
    const auto [call, call_shapes] = geo_ratio(o, n, false);
    const double h = shared_half_log(o, n, m, scope, true);
    out.kernel = outside_log(dev, h);
    parts.push_back(*out.kernel
                        ? fmt::format("device time {} too (bound {}): the kernel itself moved", fmt_ratio(dev), plus_minus(h))
                        : fmt::format("device time {} (within {}), call time {}: the host side of the call moved (launch, driver, CPU)",
                                      fmt_ratio(dev), plus_minus(h), fmt_ratio(call)));
  }
  if (p_moved && base_o != nullptr && base_n != nullptr)
    parts.push_back(fmt::format("the baseline's time {}, the contender's {}", fmt_ratio(geo_ratio(*base_o, *base_n, false).first),
                                fmt_ratio(geo_ratio(o, n, false).first)));
  // The shapes furthest outside their own bound.
  std::vector<std::pair<double, std::string>> by_shape;
  for (const auto& [label, t] : o) {
    const auto it = n.find(label);
    if (it == n.end() || !(t.call.median_us > 0)) continue;
    const double r = it->second.call.median_us / t.call.median_us;
    by_shape.push_back({std::fabs(std::log(r)) / std::max(1e-9, side_bound(m, scope, t.call)), fmt::format("{} {}", label, fmt_ratio(r))});
  }
  std::sort(by_shape.begin(), by_shape.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string most;
  for (std::size_t i = 0; i < by_shape.size() && i < 2; ++i) most += (i ? ", " : "") + by_shape[i].second;
  if (!most.empty()) parts.push_back("moved most: " + most);
  for (const std::string& p : parts) out.text += (out.text.empty() ? "" : "; ") + p;
  return out;
}

}  // namespace

json rerun_comparison(const json& old_report, const json& new_report, double tolerance) {
  return rerun_comparison(old_report, new_report, RerunJudge{tolerance, nullptr});
}

json rerun_comparison(const json& old_report, const json& new_report, const RerunJudge& judge) {
  std::vector<std::string> sweeps = report_sweeps(old_report);
  const bool check_only = sweeps.empty();
  const bool flat = judge.tolerance.has_value() || judge.model == nullptr;
  const double tolerance = judge.tolerance.value_or(0.1);
  const json o = run_side(old_report), n = run_side(new_report);
  // Between processes on the same GPU (its UUID in both), between leases otherwise.
  const SpreadScope scope = o["gpu_uuid"].is_string() && o["gpu_uuid"] == n["gpu_uuid"] ? SpreadScope::between_process : SpreadScope::between_lease;
  const SpreadModel* model = flat ? nullptr : judge.model;
  const std::vector<std::string> labels = {"report", "rerun"};
  // compare_data matches the entries and computes P and time ratios, one sweep at a time.
  std::vector<json> pairs;
  for (const std::string& w : check_only ? std::vector<std::string>{to_string(Sweep::paper)} : sweeps)
    pairs.push_back(compare_data({old_report, new_report}, labels, w)["pairs"][0]);
  const auto old_c = contenders_by_key(old_report), new_c = contenders_by_key(new_report);
  const auto old_t = shape_times(old_report), new_t = shape_times(new_report);
  std::map<EntryKey, Interval> intervals;
  if (model != nullptr) intervals = p_intervals(old_report, *model, scope);
  // The host's shift, per time scale, measured on the rerun itself (model only).
  std::optional<BandShifts> shifts;
  if (model != nullptr) shifts.emplace(old_t, new_t, *model);
  auto find = [](const std::map<Key, const json*>& m, const Key& k) -> const json* {
    const auto it = m.find(k);
    return it == m.end() ? nullptr : it->second;
  };
  auto shapes_of = [](const std::map<EntryKey, Shapes>& m, const EntryKey& k) -> const Shapes* {
    const auto it = m.find(k);
    return it == m.end() ? nullptr : &it->second;
  };
  json entries = json::array();
  std::vector<bool> hard_of;  // per entry: a difference chance does not explain
  int reproduced = 0, differ = 0, checks = 0, outside_n = 0, hard = 0;
  int device_checked = 0, device_within = 0;  // P on device time in its interval (shown, not judged)
  for (std::size_t i = 0; i < pairs.front()["rows"].size(); ++i) {
    const json& row = pairs.front()["rows"][i];
    const std::string task = row["task"], precision = row["precision"];
    const std::string ca = row["a"]["contender"], cb = row["b"]["contender"];
    const Key ka{task, precision, ca}, kb{task, precision, cb};
    json e = {{"task", task}, {"precision", precision}, {"contender", row["contender"]}};
    e["old"] = side_of(row["a"], find(old_c, ka));
    e["new"] = side_of(row["b"], find(new_c, kb));
    json reasons = json::array();
    bool entry_hard = false;  // a difference chance does not explain (correctness, disposition, a missing timing)
    const bool correct_a = row["a"]["correct"].get<bool>(), correct_b = row["b"]["correct"].get<bool>();
    if (correct_a != correct_b) {
      const json& bad = correct_a ? e["new"] : e["old"];
      const std::string msg = bad.value("message", std::string());
      reasons.push_back(fmt::format("correct in the {} ({}), not in the {} ({}{})", correct_a ? "report" : "rerun",
                                    (correct_a ? e["old"] : e["new"])["disposition"].get<std::string>(), correct_a ? "rerun" : "report",
                                    bad["disposition"].get<std::string>(), msg.empty() ? "" : ": " + msg));
      entry_hard = true;
    } else if (!correct_a && row["a"]["disposition"] != row["b"]["disposition"]) {
      reasons.push_back(fmt::format("disposition {} in the report, {} in the rerun", row["a"]["disposition"].get<std::string>(),
                                    row["b"]["disposition"].get<std::string>()));
      entry_hard = true;
    }
    json per_sweep = json::array();
    for (std::size_t w = 0; !check_only && w < sweeps.size(); ++w) {
      // The same entry in this sweep's comparison (the rows come in the same order and matching).
      const json* r = nullptr;
      for (const json& x : pairs[w]["rows"])
        if (x["task"] == row["task"] && x["precision"] == row["precision"] && x["a"]["contender"] == ca && x["b"]["contender"] == cb) r = &x;
      if (r == nullptr) continue;
      const Shapes* ot = shapes_of(old_t, {task, precision, ca, sweeps[w]});
      if (ot == nullptr && !(*r)["a"]["P"].is_number()) continue;  // not timed in this sweep by the report
      const Shapes* nt = shapes_of(new_t, {task, precision, cb, sweeps[w]});
      json s = {{"sweep", sweeps[w]}, {"P_old", (*r)["a"]["P"]}, {"P_new", (*r)["b"]["P"]}, {"P_ratio", (*r)["P_ratio"]},
                {"time_ratio", (*r)["time_ratio"].is_number() && (*r)["time_ratio"].get<double>() > 0 ? json(1.0 / (*r)["time_ratio"].get<double>())
                                                                                                        : json(nullptr)},
                {"shapes", (*r)["shapes"]}, {"worst_shape", nullptr}};
      // The shape furthest from the report's time.
      if (ot != nullptr && nt != nullptr) {
        double worst = 1;
        std::string worst_shape;
        for (const auto& [shape, t_old] : *ot) {
          const auto t_new = nt->find(shape);
          if (t_new == nt->end()) continue;
          const double ratio = t_new->second.call.median_us / t_old.call.median_us;
          if (worst_shape.empty() || std::fabs(std::log(ratio)) > std::fabs(std::log(worst))) {
            worst = ratio;
            worst_shape = shape;
          }
        }
        if (!worst_shape.empty()) s["worst_shape"] = {{"shape", worst_shape}, {"ratio", worst}};
      }
      // The bounds: the model's intervals, or the flat tolerance.
      const Interval* iv = model ? find_interval(intervals, {task, precision, ca, sweeps[w]}) : nullptr;
      double p_half = flat ? std::log1p(tolerance) : -1, t_half = p_half;
      if (model != nullptr && iv != nullptr && s["P_old"].is_number()) {
        p_half = iv->half_log;
        const double p = s["P_old"].get<double>();
        s["P_interval"] = {p * std::exp(-p_half), p * std::exp(p_half)};
      }
      // The run's shift at this entry's time scales, from the other entries: the time is judged
      // against it, and the bound leaves out the model's run-wide term.
      std::optional<double> shift;
      if (model != nullptr && ot != nullptr && nt != nullptr) {
        if (shifts) shift = shifts->entry_shift({task, precision, ca, sweeps[w]}, *ot, *nt);
        t_half = shared_half_log(*ot, *nt, *model, scope, false, shift.has_value());
        s["time_bound"] = {std::exp(-t_half), std::exp(t_half)};
        if (shift) s["run_shift"] = *shift;
      }
      auto beyond = [&](double ratio, double half) { return flat ? outside(ratio, tolerance) : half >= 0 && outside_log(ratio, half); };
      if (correct_a && correct_b) {
        bool time_moved = false, p_moved = false;
        const std::string bound_t = flat ? "" : fmt::format(", outside its bound {}", plus_minus(t_half));
        if (ot != nullptr && (s["shapes"].get<int>() == 0 || !s["time_ratio"].is_number())) {
          reasons.push_back(sweeps[w] + ": no shape timed in both");
          entry_hard = true;
        } else if (s["time_ratio"].is_number()) {
          checks += t_half >= 0;
          const double judged = s["time_ratio"].get<double>() / shift.value_or(1.0);
          if (shift) s["time_ratio_vs_run"] = judged;
          if (!flat && t_half > 0) s["time_dev"] = std::fabs(std::log(judged)) / t_half;
          if (beyond(judged, t_half)) {
            std::string worst;
            if (s["worst_shape"].is_object())
              worst = fmt::format("; furthest {}: {}", s["worst_shape"]["shape"].get<std::string>(), fmt_ratio(s["worst_shape"]["ratio"].get<double>()));
            const std::string against =
                shift ? fmt::format(", {} beside the run's shift {} at its time scales", fmt_ratio(judged), fmt_ratio(*shift)) : std::string();
            reasons.push_back(fmt::format("{}: median time {} the report's (geometric mean over {} shape{}{}){}{}", sweeps[w],
                                          fmt_ratio(s["time_ratio"].get<double>()), s["shapes"].get<int>(), s["shapes"].get<int>() == 1 ? "" : "s",
                                          worst, against, bound_t));
            time_moved = true;
          }
        }
        if (s["P_old"].is_number() && !s["P_new"].is_number()) {
          reasons.push_back(fmt::format("{}: P {:.2f} in the report, none in the rerun", sweeps[w], s["P_old"].get<double>()));
          entry_hard = true;
        } else if (s["P_ratio"].is_number() && (flat || iv != nullptr)) {
          ++checks;
          if (!flat && p_half > 0) s["P_dev"] = std::fabs(std::log(s["P_ratio"].get<double>())) / p_half;
          if (beyond(s["P_ratio"].get<double>(), p_half)) {
            reasons.push_back(fmt::format("{}: P {:.2f} -> {:.2f} ({}){}", sweeps[w], s["P_old"].get<double>(), s["P_new"].get<double>(),
                                          fmt_ratio(s["P_ratio"].get<double>()),
                                          s.contains("P_interval") ? fmt::format(", outside [{:.2f}, {:.2f}]", s["P_interval"][0].get<double>(),
                                                                                 s["P_interval"][1].get<double>())
                                                                   : std::string()));
            p_moved = true;
          }
        }
        outside_n += static_cast<int>(time_moved) + static_cast<int>(p_moved);
        // P on device time against the report's device-time interval: what a reader can quote across
        // machines; shown beside the verdict, which stays on call time (the paper's P).
        if (model != nullptr && contender_kind(ca) != ContenderKind::baseline) {
          const DeviceP old_d = device_p(old_report, task, precision, ca, sweeps[w], *model, scope);
          const json pd_old = old_d.p, div = old_d.interval;
          const json pd_new = p_device(new_report, task, precision, cb, sweeps[w]);
          if (pd_new.is_number() && div.is_array()) {
            const double v = pd_new.get<double>();
            const bool within = v >= div[0].get<double>() * (1 - 1e-12) && v <= div[1].get<double>() * (1 + 1e-12);
            s["P_device_old"] = pd_old;
            s["P_device_new"] = pd_new;
            s["P_device_interval"] = div;
            s["P_device_within"] = within;
            ++device_checked;
            device_within += within;
          }
        }
        if ((time_moved || p_moved) && model != nullptr && ot != nullptr && nt != nullptr) {
          const Shapes* bo = shapes_of(old_t, {task, precision, to_string(ContenderKind::baseline), sweeps[w]});
          const Shapes* bn = shapes_of(new_t, {task, precision, to_string(ContenderKind::baseline), sweeps[w]});
          const Moved why = what_moved(*ot, *nt, bo, bn, p_moved, *model, scope);
          if (why.kernel) s["kernel_moved"] = *why.kernel;
          if (!why.text.empty()) {
            reasons.push_back(sweeps[w] + ": " + why.text);
            s["moved"] = why.text;
          }
        }
      }
      per_sweep.push_back(s);
    }
    e["sweeps"] = per_sweep;
    e["reproduced"] = reasons.empty();
    e["reasons"] = reasons;
    hard += entry_hard;
    hard_of.push_back(entry_hard);
    entries.push_back(e);
  }
  // The whole run's call time against the model's run-wide bound: one check more. Each entry's time
  // was judged against the run's shift at its time scales; whether that shift is more than
  // machines differ by is this check's to say.
  json shift = run_shift(old_t, new_t);
  bool run_outside = false, run_kernel = true;
  double run_dev = 0;
  if (shifts && shifts->measured() && shift["call_ratio"].is_number()) {
    const double h = run_half_log(old_t, new_t, *model, scope, false);
    run_dev = h > 0 ? std::fabs(std::log(shift["call_ratio"].get<double>())) / h : 0;
    ++checks;
    run_outside = run_dev > 1 + 1e-9;
    outside_n += static_cast<int>(run_outside);
    shift["call_bound"] = {std::exp(-h), std::exp(h)};
    shift["call_dev"] = run_dev;
    if (shift["device_ratio"].is_number()) {
      const double hd = run_half_log(old_t, new_t, *model, scope, true);
      shift["device_bound"] = {std::exp(-hd), std::exp(hd)};
      run_kernel = outside_log(shift["device_ratio"].get<double>(), hd);
    }
    shift["bands"] = shifts->bands();
  }
  // Each entry's verdict. Under the model: "reproduced" (every check inside its interval);
  // "chance" (some outside, none beyond the simultaneous bound of all the run's checks: among this
  // many checks chance gives as much); "host_moved" (its call time beyond that bound, its device
  // time inside its own: the host side of the call moved, the kernels did not); "differs" (its P
  // beyond it, its time beyond it with the kernel's time moved or unknown, or its correctness).
  const double k = model != nullptr ? simultaneous_factor(model->quantile, checks, kFamilyAlpha) : 1.0;
  int within = 0, by_chance = 0, host_moved = 0, beyond_n = run_dev > k ? 1 : 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    json& e = entries[i];
    std::string verdict = e["reasons"].empty() ? "reproduced" : "differs";
    if (!flat && !hard_of[i] && !e["reasons"].empty()) {
      bool p_beyond = false, host = false, kernel = false;
      for (const json& sw : e["sweeps"]) {
        const bool p_out = sw.value("P_dev", 0.0) > k, t_out = sw.value("time_dev", 0.0) > k;
        p_beyond = p_beyond || p_out;
        beyond_n += static_cast<int>(p_out) + static_cast<int>(t_out);
        if (t_out) (sw.value("kernel_moved", true) ? kernel : host) = true;
      }
      verdict = p_beyond || kernel ? "differs" : host ? "host_moved" : "chance";
    }
    e["verdict"] = verdict;
    e["reproduced"] = verdict == "reproduced" || verdict == "chance";
    within += static_cast<int>(verdict == "reproduced");
    reproduced += static_cast<int>(e["reproduced"].get<bool>());
    by_chance += static_cast<int>(verdict == "chance");
    host_moved += static_cast<int>(verdict == "host_moved");
    differ += static_cast<int>(verdict == "differs");
  }
  const bool run_differs = run_dev > k && run_kernel;
  json only_old = pairs.front()["only_a"], only_new = pairs.front()["only_b"];
  differ += static_cast<int>(only_old.size());
  hard += static_cast<int>(only_old.size());
  // Notes: what differs about the two runs besides their numbers.
  const bool same_model = o["device"] == n["device"];
  json notes = json::array();
  if (!same_model)
    notes.push_back(fmt::format("WARNING: different GPU model: the report ran on {}, this rerun on {}", o["device"].get<std::string>(),
                                n["device"].get<std::string>()));
  const std::string gpu = report_gpu(old_report);
  if (model != nullptr && !model->measured_on(gpu))
    notes.push_back(fmt::format("the spread model was measured on {}, not on {}: the intervals judged by are {}'s, a guide only until "
                                "the model is refitted on this GPU (scripts/spread_model.py, docs/harness.md section 5); --tolerance "
                                "gives a flat check instead",
                                model->gpu, gpu, model->gpu));
  if (o["commit"].is_string() && n["commit"].is_string() && o["commit"] != n["commit"])
    notes.push_back(fmt::format("the report was made by mskb commit {}, this rerun by commit {}", o["commit"].get<std::string>(),
                                n["commit"].get<std::string>()));
  if (o["partial"].get<bool>()) notes.push_back("the report is partial (its run had not finished): entries it lacks are only in the rerun");
  auto clock = [](const json& side) { return side["sm_clock_mhz"].is_object() ? side["sm_clock_mhz"].value("median", 0.0) : 0.0; };
  if (clock(o) > 0 && clock(n) > 0 && outside(clock(n) / clock(o), 0.02))
    notes.push_back(fmt::format("SM clock (median over the timed shapes): {:.0f} MHz in the report, {:.0f} MHz in the rerun", clock(o), clock(n)));
  if (shift["call_ratio"].is_number()) {
    std::string line = fmt::format("the whole run: call time x{:.3f} over {} shapes", shift["call_ratio"].get<double>(), shift["shapes"].get<int>());
    if (shift["device_ratio"].is_number())
      line += fmt::format(", device time x{:.3f} over {}", shift["device_ratio"].get<double>(), shift["device_shapes"].get<int>());
    line += " (geometric means, rerun / report)";
    if (shift.contains("bands")) {
      std::string by;
      for (const json& b : shift["bands"])
        if (b["call_ratio"].is_number()) by += fmt::format("{}x{:.3f} {}", by.empty() ? "" : ", ", b["call_ratio"].get<double>(), b["band"].get<std::string>());
      line += "; by time scale (the median shape; each entry's call time is judged beside it): " + by;
    }
    notes.push_back(line);
  }
  if (run_outside) {
    const double hb = std::log(shift["call_bound"][1].get<double>());
    const std::string dev = shift.contains("device_bound")
                                ? fmt::format("device time x{:.3f}, {} +-{:.1f}%", shift["device_ratio"].get<double>(), run_kernel ? "outside" : "within",
                                              100 * (shift["device_bound"][1].get<double>() - 1))
                                : std::string("no device times to tell");
    notes.push_back(fmt::format("the whole run's call time is outside the model's run-wide bound {} ({}): {}", plus_minus(hb), dev,
                                run_differs  ? "more than chance explains, and not the host's alone: the run as a whole differs"
                                : !run_kernel ? "this machine's host path differs from the report's; the kernels' time did not move"
                                              : "within what chance explains among this many checks"));
  }
  if (o["launch_floor_us"].is_number() && n["launch_floor_us"].is_number() && o["launch_floor_us"].get<double>() > 0) {
    const double lo = o["launch_floor_us"].get<double>(), ln = n["launch_floor_us"].get<double>();
    if (outside(ln / lo, 0.03))
      notes.push_back(fmt::format("launch floor (one empty kernel launched and synchronized, mskb device): {:.2f} us in the report, {:.2f} us "
                                  "in the rerun (x{:.3f}): the machines' host paths differ, and launch-bound call times move with them",
                                  lo, ln, ln / lo));
  }
  if (device_checked > 0)
    notes.push_back(fmt::format("P on device time: {} of {} within the report's device-time intervals (shown, not judged: the "
                                "verdict is on call time, the paper's P)",
                                device_within, device_checked));
  json random_differ = json::array();
  const json ro = reproduce_of(old_report).value("settings", json::object()).value("random_shapes", json::object());
  const json rn = reproduce_of(new_report).value("settings", json::object()).value("random_shapes", json::object());
  for (auto it = ro.begin(); it != ro.end(); ++it)
    if (rn.contains(it.key()) && rn[it.key()] != it.value()) random_differ.push_back(it.key());
  if (!random_differ.empty())
    notes.push_back("the random shapes of " + std::to_string(random_differ.size()) +
                    " task(s) differ from the report's with the same shape seed (the task's size space changed): their checks are not the same");
  json summary = {{"entries", entries.size() + only_old.size()}, {"reproduced", reproduced}, {"differ", differ}};
  if (device_checked > 0) summary["device_P"] = {{"checked", device_checked}, {"within", device_within}};
  json judged = {{"kind", "tolerance"}, {"tolerance", tolerance}};
  if (model != nullptr) {
    // Each check is a q-interval: about (1 - q) of them fall outside by chance. More than the
    // binomial bound at 1% is more than chance explains.
    const double p_out = 1 - model->quantile;
    const int allowed = binomial_upper(checks, p_out, 0.01);
    summary["checks"] = checks;
    summary["outside"] = outside_n;
    summary["expected_outside"] = checks * p_out;
    summary["allowed_outside"] = allowed;
    summary["hard"] = hard;
    summary["within"] = within;
    summary["chance"] = by_chance;
    summary["host_moved"] = host_moved;
    summary["beyond"] = beyond_n;
    summary["simultaneous_factor"] = k;
    summary["run_differs"] = run_differs;
    summary["consistent"] = differ == 0 && outside_n <= allowed && !run_differs;
    judged = {{"kind", "model"}, {"label", model->label(scope, gpu)}, {"model", model->summary(scope, gpu)}};
  }
  return {{"judge", judged},
          {"tolerance", flat ? json(tolerance) : json(nullptr)},
          {"scope", to_string(scope)},
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
          {"shift", shift},
          {"summary", summary}};
}

}  // namespace mskb
