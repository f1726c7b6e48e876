// Owns why a machine has no usable CUDA device, in words that say what to do. The runner (the only
// process that loads CUDA) gathers the facts when its device query fails (DeviceProbe: whether
// libcuda.so.1 loads, whether the kernel module is there, the driver's and the runtime's CUDA
// versions, the device count); the parent classifies them here (explain_no_device), host-only and
// pure, so every case is tested without a GPU. CUDA's own message misleads on a machine without a
// driver: "CUDA driver version is insufficient for CUDA runtime version" there means no driver at all.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace mskb {

struct DeviceProbe {
  bool libcuda_loads = true;       // dlopen("libcuda.so.1") succeeded
  std::string libcuda_error;       // dlerror() when it did not
  bool kernel_module = true;       // /proc/driver/nvidia exists (or /dev/dxg: WSL's driver)
  int driver_version = 0;          // cudaDriverGetVersion, e.g. 12020; 0: no driver
  int runtime_version = 0;         // cudaRuntimeGetVersion, e.g. 13000
  int device_count = -1;           // cudaGetDeviceCount; -1 when the call failed
  std::string error;               // the failed call's error name, e.g. "cudaErrorInsufficientDriver"
  std::string error_text;          // its text
  std::optional<std::string> visible_devices;  // CUDA_VISIBLE_DEVICES, when set
};
void to_json(nlohmann::json& j, const DeviceProbe& p);
void from_json(const nlohmann::json& j, DeviceProbe& p);

enum class NoDeviceCause {
  no_driver,      // libcuda.so.1 cannot be loaded: no NVIDIA driver installed (or not on the loader's path)
  stub_driver,    // libcuda.so.1 is the toolkit's stub library (lib64/stubs on LD_LIBRARY_PATH)
  no_module,      // libcuda.so.1 loads but the kernel module is not loaded (/proc/driver/nvidia missing)
  old_driver,     // the driver's CUDA version is older than the runtime's
  no_device,      // the driver works but sees no GPU (none, or CUDA_VISIBLE_DEVICES hides them)
};
std::string to_string(NoDeviceCause c);  // "no_driver", ...

struct NoDeviceReason {
  NoDeviceCause cause = NoDeviceCause::no_driver;
  std::string text;  // one line: the cause, the facts behind it and what to do
};

// The cause the facts show, or nullopt when they show none of the above (the CUDA error then
// speaks for itself).
std::optional<NoDeviceReason> explain_no_device(const DeviceProbe& p);

// "13.0" for 13000, "12.2" for 12020.
std::string cuda_version_text(int version);

}  // namespace mskb
