// Owns the intervals a report shows: each contender's P with the interval the spread model
// (mskb/core/spread.hpp) gives it, read from a report's per-shape results (median time, noise,
// complexity, and the baseline's); and the per-shape timings that mskb rerun judges with the same
// model. Pure functions of a report's JSON; a report without complexities or times has none.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "mskb/core/spread.hpp"

namespace mskb {

// One shape of one contender in a report: its call time (median, noise), complexity, and device
// time when the report measured it (device_us; 0: absent).
struct ShapeTimes {
  uint64_t complexity = 0;
  TimedSide call;
  double device_us = 0;
};

// (task, precision, contender, sweep) -> shape label -> its times, for the shapes timed correctly.
using EntryKey = std::tuple<std::string, std::string, std::string, std::string>;
std::map<EntryKey, std::map<std::string, ShapeTimes>> shape_times(const nlohmann::json& run);

// P's interval of every (task, precision, contender, sweep) of a report that has one: contenders
// other than the baseline, timed with complexities on shapes the baseline timed too. `scope`:
// where a rerun would be (a report's own claim: between leases).
std::map<EntryKey, Interval> p_intervals(const nlohmann::json& run, const SpreadModel& model = spread_model(),
                                         SpreadScope scope = SpreadScope::between_lease);

// Adds "P_interval": [lo, hi] (around the score's P) to each of the report's "scores" that has one, and
// "spread_model": {"version", "quantile", "scope", "provisional", "measured_on"} to the report (with
// "other_gpu" when the report's GPU is another model than the one the spread was measured on).
void add_p_intervals(nlohmann::json& run);

// "1.32 [1.21, 1.44]": the report's P and the interval's half-width around it; "1.32" without an
// interval; "-" without a P.
std::string p_with_interval(const nlohmann::json& P, const Interval* interval);
// The same of a P and a stored "P_interval" ([lo, hi], or anything else: none).
std::string p_with_interval(const nlohmann::json& P, const nlohmann::json& stored);
// The interval of a key, or null.
const Interval* find_interval(const std::map<EntryKey, Interval>& m, const EntryKey& k);
// One line for a report's legend: "P [a, b]: the 90% interval of spread model v1 between leases (provisional) ...";
// this_gpu: the report's GPU (device name), said when the model was measured on another GPU model.
std::string interval_legend(const SpreadModel& model = spread_model(), SpreadScope scope = SpreadScope::between_lease,
                            const std::string& this_gpu = "");
// The legend of a report (its device's name; the model compiled in, between leases).
std::string interval_legend_of(const nlohmann::json& run);
// A report's GPU model (device.name), "" where it has none.
std::string report_gpu(const nlohmann::json& run);

}  // namespace mskb
