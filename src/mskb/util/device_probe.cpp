#include "mskb/util/device_probe.hpp"

#include <fmt/format.h>

namespace mskb {

void to_json(nlohmann::json& j, const DeviceProbe& p) {
  j = {{"libcuda_loads", p.libcuda_loads}, {"libcuda_error", p.libcuda_error},   {"kernel_module", p.kernel_module},
       {"driver_version", p.driver_version}, {"runtime_version", p.runtime_version}, {"device_count", p.device_count},
       {"error", p.error},                 {"error_text", p.error_text},
       {"visible_devices", p.visible_devices ? nlohmann::json(*p.visible_devices) : nlohmann::json()}};
}

void from_json(const nlohmann::json& j, DeviceProbe& p) {
  p.libcuda_loads = j.value("libcuda_loads", true);
  p.libcuda_error = j.value("libcuda_error", std::string());
  p.kernel_module = j.value("kernel_module", true);
  p.driver_version = j.value("driver_version", 0);
  p.runtime_version = j.value("runtime_version", 0);
  p.device_count = j.value("device_count", -1);
  p.error = j.value("error", std::string());
  p.error_text = j.value("error_text", std::string());
  if (j.contains("visible_devices") && j["visible_devices"].is_string()) p.visible_devices = j["visible_devices"].get<std::string>();
}

std::string to_string(NoDeviceCause c) {
  switch (c) {
    case NoDeviceCause::no_driver: return "no_driver";
    case NoDeviceCause::stub_driver: return "stub_driver";
    case NoDeviceCause::no_module: return "no_module";
    case NoDeviceCause::old_driver: return "old_driver";
    case NoDeviceCause::no_device: return "no_device";
  }
  return "no_device";
}

std::string cuda_version_text(int version) { return fmt::format("{}.{}", version / 1000, (version % 1000) / 10); }

namespace {

// What needs no GPU, for the sentences that end in "run it on a machine with one".
constexpr const char* kNoGpuNeeded = "mskb list, build, task validate, report and cudamaster optimize --dry-run need none";

}  // namespace

std::optional<NoDeviceReason> explain_no_device(const DeviceProbe& p) {
  if (p.error == "cudaErrorStubLibrary")
    return NoDeviceReason{NoDeviceCause::stub_driver,
                          "libcuda.so.1 is the CUDA toolkit's stub library, not an NVIDIA driver (a .../lib64/stubs folder on "
                          "LD_LIBRARY_PATH?): take the stubs folder off the library path and install the NVIDIA driver, or run "
                          "this on a machine with an NVIDIA GPU; " + std::string(kNoGpuNeeded)};
  if (!p.libcuda_loads) {
    std::string facts = "libcuda.so.1 cannot be loaded";
    if (!p.kernel_module) facts += " and /proc/driver/nvidia is missing";
    return NoDeviceReason{NoDeviceCause::no_driver, "no NVIDIA driver is loaded (" + facts +
                                                        "): install the NVIDIA driver, or run this on a machine with an NVIDIA GPU; " +
                                                        kNoGpuNeeded};
  }
  if (p.driver_version > 0 && p.runtime_version > 0 && p.driver_version < p.runtime_version)
    return NoDeviceReason{NoDeviceCause::old_driver,
                          fmt::format("the NVIDIA driver supports CUDA up to {} but this build's CUDA runtime is {}: install a driver "
                                      "for CUDA {} or newer (or build with a CUDA toolkit no newer than {})",
                                      cuda_version_text(p.driver_version), cuda_version_text(p.runtime_version),
                                      cuda_version_text(p.runtime_version), cuda_version_text(p.driver_version))};
  if (!p.kernel_module && p.device_count <= 0)
    return NoDeviceReason{NoDeviceCause::no_module,
                          "the NVIDIA kernel module is not loaded (libcuda.so.1 loads but /proc/driver/nvidia is missing): load it "
                          "(sudo modprobe nvidia) or reinstall the NVIDIA driver; nvidia-smi says what the driver sees"};
  if (p.driver_version > 0 && (p.device_count == 0 || p.error == "cudaErrorNoDevice")) {
    std::string text = "the NVIDIA driver (CUDA " + cuda_version_text(p.driver_version) + ") is loaded but sees no GPU";
    if (p.visible_devices)
      text += ": CUDA_VISIBLE_DEVICES=\"" + *p.visible_devices + "\" may hide them (unset it, or name a GPU nvidia-smi lists)";
    else
      text += ": nvidia-smi lists the GPUs it sees (a container needs them passed in, e.g. docker run --gpus all)";
    return NoDeviceReason{NoDeviceCause::no_device, text};
  }
  return std::nullopt;
}

}  // namespace mskb
