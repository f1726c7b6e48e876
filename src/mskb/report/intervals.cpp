// P's intervals in a report (see intervals.hpp; the math is mskb/core/spread.hpp's).
#include "mskb/report/intervals.hpp"

#include <cmath>

#include <fmt/format.h>

#include "mskb/protocol/vocabulary.hpp"
#include "mskb/report/cells.hpp"

using json = nlohmann::json;

namespace mskb {

using report::array_of;
using report::num_at;
using report::shape_label;
using report::str_at;

std::map<EntryKey, std::map<std::string, ShapeTimes>> shape_times(const json& run) {
  std::map<EntryKey, std::map<std::string, ShapeTimes>> out;
  for (const json& r : array_of(run, "results")) {
    if (!r.is_object() || !r.contains("time_us") || !r["time_us"].is_object()) continue;
    const auto d = from_string<Disposition>(str_at(r, "disposition"));
    if (r.contains("disposition") && !(d && is_correct(*d))) continue;
    const auto median = num_at(r["time_us"], "median");
    if (!median || *median <= 0) continue;
    ShapeTimes t;
    t.call.median_us = *median;
    t.call.noise = num_at(r["time_us"], "noise").value_or(0.0);
    const auto c = num_at(r, "complexity");
    t.complexity = c && *c > 0 ? static_cast<uint64_t>(*c) : 0;
    t.device_us = num_at(r, "device_us").value_or(0.0);  // absent in reports made without device timing
    out[{str_at(r, "task"), str_at(r, "precision"), str_at(r, "contender"), str_at(r, "sweep")}][shape_label(r.value("shape", json()))] = t;
  }
  return out;
}

std::map<EntryKey, Interval> p_intervals(const json& run, const SpreadModel& model, SpreadScope scope) {
  const auto times = shape_times(run);
  std::map<EntryKey, Interval> out;
  for (const auto& [key, shapes] : times) {
    const auto& [task, precision, contender, sweep] = key;
    if (contender_kind(contender) == ContenderKind::baseline) continue;  // P = 1 by definition
    const auto base = times.find({task, precision, to_string(ContenderKind::baseline), sweep});
    if (base == times.end()) continue;
    std::vector<ShapeSpeedup> pairs;
    for (const auto& [label, t] : shapes) {
      const auto b = base->second.find(label);
      if (b != base->second.end()) pairs.push_back({t.complexity, b->second.call, t.call});
    }
    if (const auto iv = p_interval(pairs, model, scope)) out[key] = *iv;
  }
  return out;
}

void add_p_intervals(json& run) {
  if (!run.contains("scores") || !run["scores"].is_array()) return;
  const SpreadModel& m = spread_model();
  const auto intervals = p_intervals(run, m, SpreadScope::between_lease);
  for (json& s : run["scores"]) {
    if (!s.is_object() || !s.contains("P") || !s["P"].is_number()) continue;
    if (const Interval* iv = find_interval(intervals, {str_at(s, "task"), str_at(s, "precision"), str_at(s, "contender"), str_at(s, "sweep")})) {
      const double P = s["P"].get<double>();
      s["P_interval"] = {P * std::exp(-iv->half_log), P * std::exp(iv->half_log)};
    }
  }
  run["spread_model"] = m.summary(SpreadScope::between_lease, report_gpu(run));
}

std::string report_gpu(const json& run) {
  if (!run.is_object() || !run.contains("device") || !run["device"].is_object()) return {};
  const json& name = run["device"].value("name", json());
  return name.is_string() ? name.get<std::string>() : std::string();
}

const Interval* find_interval(const std::map<EntryKey, Interval>& m, const EntryKey& k) {
  const auto it = m.find(k);
  return it == m.end() ? nullptr : &it->second;
}

std::string p_with_interval(const json& P, const Interval* iv) {
  if (!P.is_number()) return "-";
  const double p = P.get<double>();
  if (iv == nullptr) return fmt::format("{:.2f}", p);
  return fmt::format("{:.2f} [{:.2f}, {:.2f}]", p, p * std::exp(-iv->half_log), p * std::exp(iv->half_log));
}

std::string p_with_interval(const json& P, const json& stored) {
  if (!P.is_number()) return "-";
  if (!stored.is_array() || stored.size() != 2 || !stored[0].is_number() || !stored[1].is_number()) return fmt::format("{:.2f}", P.get<double>());
  return fmt::format("{:.2f} [{:.2f}, {:.2f}]", P.get<double>(), stored[0].get<double>(), stored[1].get<double>());
}

std::string interval_legend(const SpreadModel& model, SpreadScope scope, const std::string& this_gpu) {
  std::string line = fmt::format("P [lo, hi]: where P of another run would fall, the {:g}% interval of the {} (docs/harness.md section 5)",
                                 100 * model.quantile, model.label(scope, this_gpu));
  if (!model.measured_on(this_gpu))
    line += fmt::format("; the spread of {} was not measured, so these intervals are {}'s, a guide only until the model is refitted "
                        "on this GPU (scripts/spread_model.py)",
                        this_gpu, model.gpu);
  return line;
}

std::string interval_legend_of(const json& run) { return interval_legend(spread_model(), SpreadScope::between_lease, report_gpu(run)); }

}  // namespace mskb
