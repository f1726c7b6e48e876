#include "mskb/harness/settings.hpp"

#include <cstdlib>
#include <stdexcept>

namespace mskb {

namespace {

const char* variable(const char* name) {
  const char* e = std::getenv(name);
  return e != nullptr && *e != '\0' ? e : nullptr;
}

std::optional<bool> switch_variable(const char* name) {
  const char* e = variable(name);
  if (e == nullptr) return std::nullopt;
  const std::string v = e;
  if (v != "0" && v != "1") throw std::invalid_argument(std::string(name) + " must be 0 or 1");
  return v == "1";
}

std::optional<bool> on_off_variable(const char* name) {
  const char* e = variable(name);
  if (e == nullptr) return std::nullopt;
  const std::string v = e;
  if (v == "on" || v == "1") return true;
  if (v == "off" || v == "0") return false;
  throw std::invalid_argument(std::string(name) + " must be on or off");
}

std::optional<double> threshold_variable(const char* name) {
  const char* e = variable(name);
  if (e == nullptr) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(e, &end);
  if (end == e || *end != '\0' || !(v >= 0)) throw std::invalid_argument(std::string(name) + " must be a number >= 0");
  return v;
}

}  // namespace

Settings Settings::from_environment() {
  Settings s;
  if (const char* log = variable("MSKB_GPU_LOCK_LOG")) s.gpu_lock_log = log;
  s.gpu_instance_min_complexity = threshold_variable("MSKB_GPU_INSTANCE_MIN_COMPLEXITY");
  s.gpu_compare_min_complexity = threshold_variable("MSKB_GPU_COMPARE_MIN_COMPLEXITY");
  s.device_inputs = switch_variable("MSKB_DEVICE_INPUTS");
  s.pipeline = switch_variable("MSKB_PIPELINE");
  s.load_outside_lock = switch_variable("MSKB_LOAD_OUTSIDE_LOCK");
  s.share_instances = switch_variable("MSKB_SHARE_INSTANCES");
  s.device_time = on_off_variable("MSKB_DEVICE_TIME");
  return s;
}

}  // namespace mskb
