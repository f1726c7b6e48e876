// A stand-in libnvidia-ml.so.1 for mskb_util_gpu_sharing_test: one device ("GPU-fake"), whose process list
// is read from the file named by FAKE_NVML_PIDS (PIDs separated by spaces) on every call. Exports
// the v1 list entry points (16-byte entries) and honours the insufficient-size protocol.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {
struct ProcessInfoV1 {
  unsigned int pid;
  unsigned long long used_gpu_memory;
};
int g_device = 0;
int g_inits = 0;

std::vector<unsigned int> pids() {
  std::vector<unsigned int> out;
  const char* path = std::getenv("FAKE_NVML_PIDS");
  if (!path) return out;
  if (FILE* f = std::fopen(path, "r")) {
    unsigned int p = 0;
    while (std::fscanf(f, "%u", &p) == 1) out.push_back(p);
    std::fclose(f);
  }
  return out;
}
}  // namespace

extern "C" {
int nvmlInit_v2() {
  ++g_inits;
  return 0;
}
int nvmlShutdown() { return g_inits-- > 0 ? 0 : 1; }
int nvmlDeviceGetHandleByUUID(const char* uuid, void** device) {
  if (std::strcmp(uuid, "GPU-fake") != 0) return 6;  // NVML_ERROR_NOT_FOUND
  *device = &g_device;
  return 0;
}
int nvmlDeviceGetComputeRunningProcesses(void* device, unsigned int* count, ProcessInfoV1* infos) {
  if (device != &g_device || g_inits <= 0) return 1;
  const auto p = pids();
  if (*count < p.size()) {
    *count = static_cast<unsigned int>(p.size());
    return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  }
  for (std::size_t i = 0; i < p.size(); ++i) infos[i] = {p[i], 1u << 20};
  *count = static_cast<unsigned int>(p.size());
  return 0;
}
}
