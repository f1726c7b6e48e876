// Device time's arithmetic (see device_time.hpp).
#include "mskb/protocol/device_time.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace mskb {

namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

std::uint64_t busy_ns(std::vector<DeviceInterval> v, std::uint64_t from_ns, std::uint64_t to_ns) {
  if (to_ns <= from_ns) return 0;
  // Clipped to the window; what is left empty is dropped.
  std::vector<DeviceInterval> in;
  in.reserve(v.size());
  for (const DeviceInterval& i : v) {
    const std::uint64_t s = std::max(i.start_ns, from_ns), e = std::min(i.end_ns, to_ns);
    if (e > s) in.push_back({s, e});
  }
  std::sort(in.begin(), in.end(), [](const DeviceInterval& a, const DeviceInterval& b) { return a.start_ns < b.start_ns; });
  std::uint64_t total = 0;
  std::size_t k = 0;
  while (k < in.size()) {
    std::uint64_t s = in[k].start_ns, e = in[k].end_ns;
    for (++k; k < in.size() && in[k].start_ns <= e; ++k) e = std::max(e, in[k].end_ns);
    total += e - s;
  }
  return total;
}

double host_share(double device_us, double call_us) {
  if (!(call_us > 0)) return 1.0;
  return std::clamp(1.0 - device_us / call_us, 0.0, 1.0);
}

std::optional<DeviceTime> summarize_device_samples(const std::vector<double>& device_us, const std::vector<double>& call_us,
                                                   std::string* why) {
  auto refuse = [&](const std::string& reason) -> std::optional<DeviceTime> {
    if (why) *why = reason;
    return std::nullopt;
  };
  if (device_us.empty()) return refuse("no device samples");
  if (device_us.size() != call_us.size())
    return refuse(fmt::format("{} device times for {} calls", device_us.size(), call_us.size()));
  std::vector<double> dev, shares;
  for (std::size_t i = 0; i < device_us.size(); ++i) {
    const double d = device_us[i], c = call_us[i];
    if (!std::isfinite(d) || !std::isfinite(c) || c <= 0 || d < 0)
      return refuse(fmt::format("device sample {} is not a time (device {} us, call {} us)", i, d, c));
    if (d > c * (1 + kDeviceSlackFraction) + kDeviceSlackUs)
      return refuse(fmt::format("device sample {}: {:.2f} us of device time in a call of {:.2f} us", i, d, c));
    dev.push_back(std::min(d, c));
    shares.push_back(host_share(std::min(d, c), c));
  }
  DeviceTime t;
  t.device_us = median_of(dev);
  t.call_us = median_of(call_us);
  t.host_share = median_of(shares);
  t.samples = static_cast<int>(dev.size());
  return t;
}

void put_device_time(nlohmann::json& j, const DeviceTime& d) {
  j["device_us"] = d.device_us;
  j["device_call_us"] = d.call_us;
  j["host_share"] = d.host_share;
  j["device_samples"] = d.samples;
}

std::optional<DeviceTime> device_time_at(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  const auto it = j.find("device_us");
  if (it == j.end() || !it->is_number()) return std::nullopt;
  auto num = [&](const char* k, double dflt) {
    const auto f = j.find(k);
    return f != j.end() && f->is_number() ? f->get<double>() : dflt;
  };
  DeviceTime d;
  d.device_us = it->get<double>();
  d.call_us = num("device_call_us", 0.0);
  d.host_share = num("host_share", d.call_us > 0 ? host_share(d.device_us, d.call_us) : 0.0);
  d.samples = static_cast<int>(num("device_samples", 0.0));
  return d;
}

}  // namespace mskb
