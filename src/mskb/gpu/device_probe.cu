// What a failed device query can tell about the machine (mskb/util/device_probe.hpp): whether the
// driver library loads, whether the kernel module is there, the driver's and the runtime's CUDA
// versions, the device count. The parent turns these facts into the one line users read.
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "mskb/gpu/runner.cuh"

namespace mskb::gpu {

DeviceProbe probe_device(cudaError_t failed) {
  DeviceProbe p;
  dlerror();
  if (void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(h);
  } else {
    p.libcuda_loads = false;
    const char* why = dlerror();
    p.libcuda_error = why != nullptr ? why : "";
  }
  std::error_code ec;
  p.kernel_module = std::filesystem::exists("/proc/driver/nvidia", ec) || std::filesystem::exists("/dev/dxg", ec);
  int v = 0;
  if (cudaDriverGetVersion(&v) == cudaSuccess) p.driver_version = v;
  v = 0;
  if (cudaRuntimeGetVersion(&v) == cudaSuccess) p.runtime_version = v;
  int count = 0;
  const cudaError_t c = cudaGetDeviceCount(&count);
  p.device_count = c == cudaSuccess ? count : -1;
  const cudaError_t e = failed != cudaSuccess ? failed : c;
  if (e != cudaSuccess) {
    p.error = cudaGetErrorName(e);
    p.error_text = cudaGetErrorString(e);
  }
  (void)cudaGetLastError();  // the probe's own errors are not the caller's
  if (const char* vis = std::getenv("CUDA_VISIBLE_DEVICES")) p.visible_devices = vis;
  return p;
}

}  // namespace mskb::gpu
