// The runner's side of events.hpp: every event's line, written in one place (the parent's reader,
// events.cpp, reads the same keys).
#include "mskb/protocol/events.hpp"

#include <unistd.h>

#include <cstddef>
#include <string>
#include <type_traits>
#include <variant>

namespace mskb {

namespace {

using json = nlohmann::json;

template <class> inline constexpr bool kAlwaysFalse = false;

// A shape as check, timing and profiled events send it: the dimensions, and their string.
void put_shape(json& j, const Shape& s) {
  j["shape"] = s;
  j["shape_str"] = s.str();
}

}  // namespace

void to_json(json& j, const DeviceEvent& d) {
  j = {{"name", d.name}, {"uuid", d.uuid}, {"sms", d.sms}, {"compute_capability", d.compute_capability}, {"device_count", d.device_count}};
  if (!d.ceilings) return;
  const DeviceEvent::Ceilings& c = *d.ceilings;
  j["l2_bytes"] = c.l2_bytes;
  j["memory_bytes"] = c.memory_bytes;
  j["max_sm_clock_mhz"] = c.max_sm_clock_mhz;
  j["memory_clock_mhz"] = c.memory_clock_mhz;
  j["driver_version"] = c.driver_version;
  j["runtime_version"] = c.runtime_version;
  j["dram_bandwidth_gbs"] = c.dram_bandwidth_gbs;
  j["fp32_tflops"] = c.fp32_tflops;
  j["bf16_tflops"] = c.bf16_tflops;
  if (c.launch_floor_us > 0) j["launch_floor_us"] = c.launch_floor_us;
  j["method"] = c.method;
}

void from_json(const json& j, DeviceEvent& d) {
  d.name = j.value("name", std::string());
  d.uuid = j.value("uuid", std::string());
  d.compute_capability = j.value("compute_capability", std::string());
  d.sms = j.value("sms", 0);
  d.device_count = j.value("device_count", 1);
  d.ceilings.reset();
  if (!j.contains("dram_bandwidth_gbs")) return;
  DeviceEvent::Ceilings c;
  c.l2_bytes = j.value("l2_bytes", 0LL);
  c.memory_bytes = j.value("memory_bytes", 0LL);
  c.max_sm_clock_mhz = j.value("max_sm_clock_mhz", 0);
  c.memory_clock_mhz = j.value("memory_clock_mhz", 0);
  c.driver_version = j.value("driver_version", 0);
  c.runtime_version = j.value("runtime_version", 0);
  c.dram_bandwidth_gbs = j.value("dram_bandwidth_gbs", 0.0);
  c.fp32_tflops = j.value("fp32_tflops", 0.0);
  c.bf16_tflops = j.value("bf16_tflops", 0.0);
  c.launch_floor_us = j.value("launch_floor_us", 0.0);
  c.method = j.value("method", std::string());
  d.ceilings = c;
}

json event_json(const Event& event) {
  return std::visit(
      [](const auto& e) -> json {
        using E = std::decay_t<decltype(e)>;
        json j;
        if constexpr (std::is_same_v<E, PhaseEvent>) {
          j = {{"event", "phase"}, {"phase", e.phase}, {"shape", e.shape.str()}, {"seed", e.seed}, {"timeout_s", e.timeout_s}};
        } else if constexpr (std::is_same_v<E, CheckEvent>) {
          j = {{"event", "check"}, {"sweep", e.sweep}, {"seed", e.seed}, {"disposition", e.disposition}, {"reference", e.reference},
               {"gap_us", e.gap_us}, {"call_us", e.call_us}, {"detail", e.detail}, {"seconds", e.seconds}};
          put_shape(j, e.shape);
        } else if constexpr (std::is_same_v<E, TimingEvent>) {
          j = {{"event", "timing"},           {"sweep", e.sweep},
               {"seed", e.seed},              {"time_us", e.time},
               {"after_timing", e.after_timing}, {"after_detail", e.after_detail},
               {"verified_samples", e.verified_samples}, {"seconds", e.seconds}};
          put_shape(j, e.shape);
        } else if constexpr (std::is_same_v<E, DeviceEvent>) {
          j = e;
          j["event"] = "device";
        } else if constexpr (std::is_same_v<E, ProfiledEvent>) {
          j = {{"event", "profiled"}, {"call_us", e.call_us}};
          put_shape(j, e.shape);
        } else if constexpr (std::is_same_v<E, FatalEvent>) {
          j = {{"event", "fatal"}, {"disposition", e.disposition}, {"message", e.message}};
          if (!e.device_probe.is_null()) j["device_probe"] = e.device_probe;
        } else if constexpr (std::is_same_v<E, DoneEvent>) {
          j = {{"event", "done"}};
        } else if constexpr (std::is_same_v<E, SandboxEvent>) {
          j = {{"event", "sandbox"}, {"level", e.level}};
        } else if constexpr (std::is_same_v<E, NoteEvent>) {
          j = {{"event", "note"}, {"key", e.key}, {"text", e.text}};
        } else {
          static_assert(kAlwaysFalse<E>, "an event without its line");
        }
        return j;
      },
      event);
}

void EventWriter::emit(const Event& e) const {
  json j = event_json(e);
  if (!token_.empty()) j["token"] = token_;
  const std::string line = j.dump() + "\n";
  const char* p = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    const ssize_t w = ::write(fd_, p, left);
    if (w <= 0) return;  // parent gone: nothing more to say
    p += w;
    left -= static_cast<std::size_t>(w);
  }
}

}  // namespace mskb
