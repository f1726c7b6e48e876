#include "mskb/util/gpu_sharing.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>

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

// The few NVML entry points used. The process lists are read through their unversioned (v1)
// symbols, which the driver keeps exporting for old binaries (entries {unsigned int pid; unsigned
// long long usedGpuMemory}, 16 bytes), else through _v2 (two more unsigned ints, 24 bytes); the
// PID leads both. The _v3 struct has grown across NVML versions, so it is not used.
struct GpuSharing::Nvml {
  using Init = int (*)();
  using Shutdown = int (*)();
  using HandleByUuid = int (*)(const char*, void**);
  using Processes = int (*)(void*, unsigned int*, void*);
  static constexpr int kSuccess = 0, kInsufficientSize = 7;

  struct Lister {
    Processes fn = nullptr;
    std::size_t entry_bytes = 0;
  };

  void* lib = nullptr;
  Shutdown shutdown = nullptr;
  Lister compute, graphics;
  void* device = nullptr;
  bool initialized = false, ready = false;

  Lister lister(const char* name) const {
    if (auto* f = dlsym(lib, name)) return {reinterpret_cast<Processes>(f), 16};
    if (auto* f = dlsym(lib, (std::string(name) + "_v2").c_str())) return {reinterpret_cast<Processes>(f), 24};
    return {};
  }

  explicit Nvml(const std::string& uuid) {
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    auto init = reinterpret_cast<Init>(dlsym(lib, "nvmlInit_v2"));
    shutdown = reinterpret_cast<Shutdown>(dlsym(lib, "nvmlShutdown"));
    auto by_uuid = reinterpret_cast<HandleByUuid>(dlsym(lib, "nvmlDeviceGetHandleByUUID"));
    compute = lister("nvmlDeviceGetComputeRunningProcesses");
    graphics = lister("nvmlDeviceGetGraphicsRunningProcesses");
    if (!init || !shutdown || !by_uuid || !compute.fn) return;
    initialized = init() == kSuccess;
    ready = initialized && by_uuid(uuid.c_str(), &device) == kSuccess;
  }
  ~Nvml() {
    if (initialized) shutdown();
    if (lib) dlclose(lib);
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  static bool append(const Lister& l, void* dev, std::vector<uint64_t>& pids) {
    std::vector<unsigned char> buf(64 * l.entry_bytes);
    for (int attempt = 0; attempt < 4; ++attempt) {
      auto count = static_cast<unsigned int>(buf.size() / l.entry_bytes);
      const int st = l.fn(dev, &count, buf.data());
      if (st == kSuccess) {
        for (std::size_t i = 0; i < count && (i + 1) * l.entry_bytes <= buf.size(); ++i) {
          unsigned int pid = 0;
          std::memcpy(&pid, buf.data() + i * l.entry_bytes, sizeof pid);
          pids.push_back(pid);
        }
        return true;
      }
      if (st != kInsufficientSize) return false;
      buf.resize((std::max<std::size_t>(count, buf.size() / l.entry_bytes * 2) + 8) * l.entry_bytes);
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
  if (nvml_->graphics.fn) Nvml::append(nvml_->graphics, nvml_->device, pids);
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
