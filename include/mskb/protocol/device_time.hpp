// Owns the arithmetic of device time, the time the GPU spent on what one call of the entry point
// issued (kernels, copies, sets), beside the call time that P is computed from (CUDA events around
// the whole entry point, host code included): the union of a call's activity intervals, the
// verifier's summary of the candidate's device samples (checked against their own call times),
// and its JSON in the timing event's "time_us". The candidate measures the intervals (CUPTI,
// mskb/gpu/device_activity.cuh); everything here is host arithmetic with unit tests.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mskb {

// One activity record: [start_ns, end_ns) on the profiler's clock.
struct DeviceInterval {
  std::uint64_t start_ns = 0, end_ns = 0;
};

// The time covered by at least one interval, clipped to [from_ns, to_ns]: overlapping and
// touching intervals are merged, so work on two streams at once counts once and the gaps between
// kernels (launch overhead, host work between them) do not count. Empty or inverted intervals
// count nothing.
std::uint64_t busy_ns(std::vector<DeviceInterval> intervals, std::uint64_t from_ns, std::uint64_t to_ns);

// A shape's device time, summarized by the verifier from the candidate's device samples: extra
// calls made after the timed samples (prepared the same way: outputs reset, L2 flushed), each with
// its call time (events) and its device time (busy_ns of its records).
struct DeviceTime {
  double device_us = 0;   // median over the device samples of each call's device time
  double call_us = 0;     // median of the same calls' call times
  double host_share = 0;  // median over the samples of 1 - device/call, in [0, 1]
  int samples = 0;
};

// A device time above its call time by more than this (relative, plus kDeviceSlackUs) is not the
// device time of that call: the verifier refuses the samples (the clocks of CUPTI and of CUDA
// events agree to well within it for work inside the events).
inline constexpr double kDeviceSlackFraction = 0.05;
inline constexpr double kDeviceSlackUs = 2.0;
// A shape whose host share exceeds this is host-bound: most of its call time is not GPU work.
inline constexpr double kHostBoundShare = 0.5;

// The summary of paired samples (device_us[i] and call_us[i] of the same call), or a one-line
// reason in `why` (and nullopt) when they are not usable: none, unpaired, not finite, a call time
// <= 0, a negative device time, or a device time beyond its call time (kDeviceSlack*). A device
// time within the slack above its call time is clamped to it.
std::optional<DeviceTime> summarize_device_samples(const std::vector<double>& device_us, const std::vector<double>& call_us,
                                                   std::string* why);

// 1 - device/call clamped to [0, 1] (1 when the call time is not positive).
double host_share(double device_us, double call_us);

// DeviceTime in a JSON object (the timing event's "time_us", a run store's timing): "device_us",
// "device_call_us", "host_share", "device_samples"; read back when "device_us" is there.
void put_device_time(nlohmann::json& j, const DeviceTime& d);
std::optional<DeviceTime> device_time_at(const nlohmann::json& j);

}  // namespace mskb
