// The timing statistics of events.hpp: the timing event's "time_us", computed by the verifier.
#include "mskb/protocol/events.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mskb {

void to_json(nlohmann::json& j, const TimingStats& t) {
  j = {{"median", t.median_us}, {"min", t.min_us},       {"max", t.max_us},
       {"mean", t.mean_us},     {"stddev", t.stddev_us}, {"n", t.n},
       {"noise", t.noise},      {"wall_gap_max_us", t.wall_gap_max_us},
       {"wall_gap_p90_us", t.wall_gap_p90_us}, {"wall_median_us", t.wall_median_us}, {"sm_clock_mhz", t.sm_clock_mhz}};
  if (t.gpu_others >= 0) {
    j["gpu_others"] = t.gpu_others;
    j["gpu_other_pids"] = t.gpu_other_pids;
  }
  if (t.device) put_device_time(j, *t.device);
  else if (!t.device_note.empty()) j["device_note"] = t.device_note;
}

void from_json(const nlohmann::json& j, TimingStats& t) {
  t.median_us = j.value("median", 0.0);
  t.min_us = j.value("min", 0.0);
  t.max_us = j.value("max", 0.0);
  t.mean_us = j.value("mean", 0.0);
  t.stddev_us = j.value("stddev", 0.0);
  t.n = j.value("n", 0);
  t.noise = j.value("noise", 0.0);
  t.wall_gap_max_us = j.value("wall_gap_max_us", 0.0);
  // Reports from before the p90 was measured judged the maximum.
  t.wall_gap_p90_us = j.value("wall_gap_p90_us", t.wall_gap_max_us);
  t.wall_median_us = j.value("wall_median_us", 0.0);
  t.sm_clock_mhz = j.value("sm_clock_mhz", 0.0);
  // Absent (no NVML, or a report from before the check): not known.
  t.gpu_others = j.contains("gpu_others") && j["gpu_others"].is_number_integer() ? j["gpu_others"].get<int>() : -1;
  t.gpu_other_pids = j.contains("gpu_other_pids") ? j["gpu_other_pids"].get<std::vector<uint64_t>>() : std::vector<uint64_t>{};
  // Absent in reports from before device time was measured.
  t.device = device_time_at(j);
  t.device_note = j.contains("device_note") && j["device_note"].is_string() ? j["device_note"].get<std::string>() : std::string();
}

double p90_lower(std::vector<double> v) {
  if (v.empty()) return 0;
  const std::size_t k = (v.size() - 1) * 9 / 10;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

TimingStats summarize_samples(std::vector<double> s) {
  TimingStats t;
  t.n = static_cast<int>(s.size());
  if (s.empty()) return t;
  std::sort(s.begin(), s.end());
  const std::size_t n = s.size();
  t.median_us = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  t.min_us = s.front();
  t.max_us = s.back();
  t.mean_us = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(n);
  double var = 0;
  for (double x : s) var += (x - t.mean_us) * (x - t.mean_us);
  t.stddev_us = n > 1 ? std::sqrt(var / static_cast<double>(n - 1)) : 0.0;
  t.noise = t.mean_us > 0 ? t.stddev_us / std::sqrt(static_cast<double>(n)) / t.mean_us : 0.0;
  return t;
}

}  // namespace mskb
