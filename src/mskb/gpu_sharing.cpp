#include "mskb/gpu_sharing.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>

namespace mskb {

namespace {
void sort_unique(std::vector<uint64_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}
}  // namespace

std::vector<uint64_t> appeared(std::vector<uint64_t> before, std::vector<uint64_t> after) {
  sort_unique(before);
  sort_unique(after);
  std::vector<uint64_t> out;
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(out));
  return out;
}

std::vector<uint64_t> others(std::vector<uint64_t> now, const std::vector<uint64_t>& own) {
  sort_unique(now);
  std::vector<uint64_t> mine = own;
  sort_unique(mine);
  std::vector<uint64_t> out;
  std::set_difference(now.begin(), now.end(), mine.begin(), mine.end(), std::back_inserter(out));
  return out;
}

std::string uuid_string(const unsigned char (&b)[16]) {
  char s[64];
  std::snprintf(s, sizeof s, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
                b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return s;
}

// The few NVML entry points used, with the ABI of their unversioned (v1) symbols, which the
// driver keeps exporting: nvmlProcessInfo_v1_t is {unsigned int pid; unsigned long long mem}.
struct GpuSharing::Nvml {
  struct ProcessInfoV1 {
    unsigned int pid;
    unsigned long long used_gpu_memory;
  };
  using Init = int (*)();
  using Shutdown = int (*)();
  using HandleByUuid = int (*)(const char*, void**);
  using Processes = int (*)(void*, unsigned int*, ProcessInfoV1*);
  static constexpr int kSuccess = 0, kInsufficientSize = 7;

  void* lib = nullptr;
  Shutdown shutdown = nullptr;
  Processes compute = nullptr, graphics = nullptr;
  void* device = nullptr;
  bool ready = false;

  explicit Nvml(const std::string& uuid) {
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    auto init = reinterpret_cast<Init>(dlsym(lib, "nvmlInit_v2"));
    shutdown = reinterpret_cast<Shutdown>(dlsym(lib, "nvmlShutdown"));
    auto by_uuid = reinterpret_cast<HandleByUuid>(dlsym(lib, "nvmlDeviceGetHandleByUUID"));
    compute = reinterpret_cast<Processes>(dlsym(lib, "nvmlDeviceGetComputeRunningProcesses"));
    graphics = reinterpret_cast<Processes>(dlsym(lib, "nvmlDeviceGetGraphicsRunningProcesses"));
    if (!init || !shutdown || !by_uuid || !compute || init() != kSuccess) return;
    ready = by_uuid(uuid.c_str(), &device) == kSuccess;
  }
  ~Nvml() {
    if (ready && shutdown) shutdown();
    if (lib) dlclose(lib);
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  static bool append(Processes fn, void* dev, std::vector<uint64_t>& pids) {
    std::vector<ProcessInfoV1> buf(64);
    for (int attempt = 0; attempt < 4; ++attempt) {
      auto count = static_cast<unsigned int>(buf.size());
      const int st = fn(dev, &count, buf.data());
      if (st == kSuccess) {
        for (unsigned int i = 0; i < count && i < buf.size(); ++i) pids.push_back(buf[i].pid);
        return true;
      }
      if (st != kInsufficientSize) return false;
      buf.resize(std::max<std::size_t>(count, buf.size() * 2) + 8);
    }
    return false;
  }
};

GpuSharing::GpuSharing(const std::string& uuid) : nvml_(std::make_unique<Nvml>(uuid)) {
  if (nvml_->ready) known_ = list(before_);
}

GpuSharing::~GpuSharing() = default;

bool GpuSharing::list(std::vector<uint64_t>& pids) {
  pids.clear();
  if (!nvml_->ready || !Nvml::append(nvml_->compute, nvml_->device, pids)) return false;
  if (nvml_->graphics) Nvml::append(nvml_->graphics, nvml_->device, pids);
  return true;
}

void GpuSharing::context_created() {
  if (!known_) return;
  std::vector<uint64_t> after;
  known_ = list(after);
  if (known_) own_ = appeared(before_, after);
  known_ = known_ && !own_.empty();
}

std::vector<uint64_t> GpuSharing::others_now() {
  std::vector<uint64_t> now;
  if (!known_ || !list(now)) return {};
  return others(std::move(now), own_);
}

}  // namespace mskb
