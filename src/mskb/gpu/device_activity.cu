// CUPTI activity records of the extra device-time calls (device_activity.cuh). CUPTI is loaded
// with dlopen and reached through the few functions below; its records are read at the offsets
// every recorded kind shares (start at 16, end at 24 bytes: checked against the headers).
#include "mskb/gpu/device_activity.cuh"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "mskb/core/invoke.hpp"
#include "mskb/gpu/candidate_fatal.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/event_pair.cuh"
#include "mskb/gpu/stopwatch.cuh"
#include "mskb/protocol/device_time.hpp"

#if MSKB_HAVE_CUPTI
#include <cupti.h>
#endif

namespace mskb::gpu {

namespace {

std::string parent_dir(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::string cupti_soname() { return "libcupti.so." + std::to_string(CUDART_VERSION / 1000); }

#if MSKB_HAVE_CUPTI

// Every recorded kind has its start and end timestamps here (the current record versions as well).
static_assert(offsetof(CUpti_ActivityKernel4, start) == 16 && offsetof(CUpti_ActivityKernel4, end) == 24, "kernel record layout");
static_assert(offsetof(CUpti_ActivityMemcpy, start) == 16 && offsetof(CUpti_ActivityMemcpy, end) == 24, "memcpy record layout");
static_assert(offsetof(CUpti_ActivityMemset, start) == 16 && offsetof(CUpti_ActivityMemset, end) == 24, "memset record layout");
static_assert(offsetof(CUpti_ActivityMemcpyPtoP, start) == 16 && offsetof(CUpti_ActivityMemcpyPtoP, end) == 24, "peer copy record layout");
constexpr std::size_t kStartOffset = 16, kEndOffset = 24;

struct Api {
  CUptiResult (*get_result_string)(CUptiResult, const char**) = nullptr;
  CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc) = nullptr;
  CUptiResult (*enable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*disable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*flush_all)(uint32_t) = nullptr;
  CUptiResult (*next_record)(uint8_t*, size_t, CUpti_Activity**) = nullptr;
  CUptiResult (*timestamp)(uint64_t*) = nullptr;
};

// What CUPTI's callbacks (global, called on its own thread) deliver into. Never destroyed: CUPTI
// may still call in while the process exits.
struct Sink {
  Api api;
  std::mutex m;
  std::vector<DeviceInterval> records;
  std::vector<uint8_t*> free_buffers;
  std::uint64_t incomplete = 0;  // records without timestamps
  std::uint64_t dropped = 0;     // buffers CUPTI asked for that could not be given
};
Sink& sink() {
  static Sink* s = new Sink;
  return *s;
}

constexpr std::size_t kBufferBytes = 1u << 20;
constexpr CUpti_ActivityKind kRequiredKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                                 CUPTI_ACTIVITY_KIND_MEMSET};
// Peer copies: recorded where the library offers them (a single-GPU candidate rarely makes one).
constexpr CUpti_ActivityKind kOptionalKind = CUPTI_ACTIVITY_KIND_MEMCPY2;
std::atomic<bool> optional_on{false};

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  Sink& s = sink();
  uint8_t* b = nullptr;
  {
    const std::lock_guard<std::mutex> lock(s.m);
    if (!s.free_buffers.empty()) {
      b = s.free_buffers.back();
      s.free_buffers.pop_back();
    }
  }
  if (b == nullptr) b = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  if (b == nullptr) {
    const std::lock_guard<std::mutex> lock(s.m);
    ++s.dropped;
  }
  *buffer = b;
  *size = b != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  Sink& s = sink();
  std::vector<DeviceInterval> got;
  std::uint64_t incomplete = 0;
  CUpti_Activity* r = nullptr;
  while (buffer != nullptr && s.api.next_record(buffer, valid, &r) == CUPTI_SUCCESS) {
    switch (r->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_MEMCPY:
      case CUPTI_ACTIVITY_KIND_MEMSET:
      case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        DeviceInterval i;
        std::memcpy(&i.start_ns, reinterpret_cast<const char*>(r) + kStartOffset, sizeof i.start_ns);
        std::memcpy(&i.end_ns, reinterpret_cast<const char*>(r) + kEndOffset, sizeof i.end_ns);
        if (i.start_ns == 0 || i.end_ns < i.start_ns) ++incomplete;
        else got.push_back(i);
        break;
      }
      default:
        break;
    }
  }
  const std::lock_guard<std::mutex> lock(s.m);
  s.records.insert(s.records.end(), got.begin(), got.end());
  s.incomplete += incomplete;
  if (buffer != nullptr) s.free_buffers.push_back(buffer);
}

std::string cupti_error(CUptiResult r) {
  const char* text = nullptr;
  if (sink().api.get_result_string != nullptr && sink().api.get_result_string(r, &text) == CUPTI_SUCCESS && text != nullptr) return text;
  return "CUPTI error " + std::to_string(static_cast<int>(r));
}

template <class F>
bool resolve(void* lib, const char* name, F& f, std::string& why) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (f == nullptr) why = std::string("not available: the CUPTI library lacks ") + name;
  return f != nullptr;
}

// The process's one holder of CUPTI's callbacks.
std::atomic<bool> taken{false};

#endif  // MSKB_HAVE_CUPTI

}  // namespace

std::string find_cupti_library() {
  if (const char* e = std::getenv("MSKB_CUPTI_LIBRARY"); e != nullptr && *e != '\0') return e;
  std::vector<std::string> dirs;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cudaRuntimeGetVersion), &info) != 0 && info.dli_fname != nullptr) {
    // The runtime's folder: lib64 (or targets/<arch>/lib) of a toolkit, or a folder of its own.
    char* real = ::realpath(info.dli_fname, nullptr);
    const std::string dir = parent_dir(real != nullptr ? real : info.dli_fname);
    std::free(real);
    dirs = {dir, dir + "/../extras/CUPTI/lib64", dir + "/../../../extras/CUPTI/lib64"};
  }
  for (const char* d : {"/usr/local/cuda/extras/CUPTI/lib64", "/usr/local/cuda/lib64"}) dirs.emplace_back(d);
  for (const std::string& d : dirs) {
    const std::string path = d + "/" + cupti_soname();
    if (::access(path.c_str(), R_OK) != 0) continue;
    char* real = ::realpath(path.c_str(), nullptr);
    const std::string out = real != nullptr ? real : path;
    std::free(real);
    return out;
  }
  return "";
}

#if MSKB_HAVE_CUPTI

DeviceActivity::DeviceActivity(const std::string& library) {
  if (taken.exchange(true)) {
    why_ = "not available: CUPTI is already recording in this process";
    return;
  }
  owner_ = true;
  const std::string name = library.empty() ? cupti_soname() : library;
  void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);  // never closed: CUPTI's thread lives on
  if (lib == nullptr) {
    const char* e = dlerror();
    why_ = "not available: cannot load " + name + (e != nullptr ? std::string(": ") + e : std::string());
    return;
  }
  Api& api = sink().api;
  if (!resolve(lib, "cuptiGetResultString", api.get_result_string, why_) ||
      !resolve(lib, "cuptiActivityRegisterCallbacks", api.register_callbacks, why_) ||
      !resolve(lib, "cuptiActivityEnable", api.enable, why_) || !resolve(lib, "cuptiActivityDisable", api.disable, why_) ||
      !resolve(lib, "cuptiActivityFlushAll", api.flush_all, why_) || !resolve(lib, "cuptiActivityGetNextRecord", api.next_record, why_) ||
      !resolve(lib, "cuptiGetTimestamp", api.timestamp, why_))
    return;
  if (const CUptiResult r = api.register_callbacks(buffer_requested, buffer_completed); r != CUPTI_SUCCESS) {
    why_ = "not available: cuptiActivityRegisterCallbacks: " + cupti_error(r);
    return;
  }
  // Once now, while the process may still create threads and open files as CUPTI likes: later
  // recordings only switch the kinds on and off.
  std::string why;
  if (!enable_kinds(why)) {
    why_ = "not available: " + why;
    return;
  }
  disable_kinds();
  std::uint64_t busy = 0;
  ok_ = true;
  if (!busy_between(0, 0, busy, why)) {
    ok_ = false;
    why_ = "not available: " + why;
  }
}

DeviceActivity::~DeviceActivity() {
  if (!owner_) return;
  if (ok_) {
    disable_kinds();
    sink().api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  }
  taken = false;
}

bool DeviceActivity::enable_kinds(std::string& why) {
  const Api& api = sink().api;
  for (const CUpti_ActivityKind k : kRequiredKinds)
    if (const CUptiResult r = api.enable(k); r != CUPTI_SUCCESS) {
      why = "cuptiActivityEnable(" + std::to_string(static_cast<int>(k)) + "): " + cupti_error(r);
      disable_kinds();
      return false;
    }
  optional_on = api.enable(kOptionalKind) == CUPTI_SUCCESS;
  return true;
}

void DeviceActivity::disable_kinds() {
  const Api& api = sink().api;
  for (const CUpti_ActivityKind k : kRequiredKinds) api.disable(k);
  if (optional_on.exchange(false)) api.disable(kOptionalKind);
}

std::uint64_t DeviceActivity::now_ns() const {
  std::uint64_t t = 0;
  if (ok_) sink().api.timestamp(&t);
  return t;
}

bool DeviceActivity::busy_between(std::uint64_t from_ns, std::uint64_t to_ns, std::uint64_t& busy, std::string& why) {
  if (!ok_) {
    why = why_;
    return false;
  }
  Sink& s = sink();
  if (const CUptiResult r = s.api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); r != CUPTI_SUCCESS) {
    why = "cuptiActivityFlushAll: " + cupti_error(r);
    return false;
  }
  std::vector<DeviceInterval> records;
  std::uint64_t incomplete = 0, dropped = 0;
  {
    const std::lock_guard<std::mutex> lock(s.m);
    records.swap(s.records);
    incomplete = std::exchange(s.incomplete, 0);
    dropped = std::exchange(s.dropped, 0);
  }
  if (incomplete > 0 || dropped > 0) {
    why = "CUPTI delivered " + std::to_string(incomplete) + " records without timestamps and dropped " + std::to_string(dropped) +
          " buffers";
    return false;
  }
  busy = busy_ns(std::move(records), from_ns, to_ns);
  return true;
}

DeviceActivity::Recording::Recording(DeviceActivity& a) : a_(a) {
  if (!a.ok_) return;
  std::string why;
  ok_ = a.enable_kinds(why);
  if (!ok_) {
    a.ok_ = false;
    a.why_ = "not available: " + why;
  }
}

DeviceActivity::Recording::~Recording() {
  if (!ok_) return;
  a_.disable_kinds();
  std::uint64_t busy = 0;
  std::string why;
  a_.busy_between(0, 0, busy, why);  // what is left is dropped: the next recording starts empty
}

#else  // built without CUPTI's headers: device time is never measured, and reports say so

DeviceActivity::DeviceActivity(const std::string&) { why_ = "not available: mskb-runner was built without CUPTI's headers"; }
DeviceActivity::~DeviceActivity() = default;
bool DeviceActivity::enable_kinds(std::string& why) {
  why = why_;
  return false;
}
void DeviceActivity::disable_kinds() {}
std::uint64_t DeviceActivity::now_ns() const { return 0; }
bool DeviceActivity::busy_between(std::uint64_t, std::uint64_t, std::uint64_t&, std::string& why) {
  why = why_;
  return false;
}
DeviceActivity::Recording::Recording(DeviceActivity& a) : a_(a) {}
DeviceActivity::Recording::~Recording() = default;

#endif  // MSKB_HAVE_CUPTI

DeviceSamples time_device(void* fn, DeviceInstance& d, const TimingConfig& cfg, L2Flusher& l2, DeviceActivity& a, int count,
                          double budget_s) {
  DeviceSamples out;
  const auto t0 = Clock::now();
  if (!a.available()) {
    out.note = a.why();
    return out;
  }
  CudaEventPair ev;
  {
    DeviceActivity::Recording recording(a);
    if (!recording.ok()) {
      out.note = a.why();
      out.seconds = seconds_since(t0);
      return out;
    }
    for (int i = 0; i < count; ++i) {
      if (i >= 1 && seconds_since(t0) > budget_s) break;
      d.reset();
      if (cfg.flush_l2) l2.flush();
      MSKB_CUDA_CHECK(cudaDeviceSynchronize());
      const std::uint64_t from = a.now_ns();
      MSKB_CUDA_CHECK(cudaEventRecord(ev.start, 0));
      invoke(fn, d.slots);
      MSKB_CUDA_CHECK(cudaEventRecord(ev.stop, 0));
      const cudaError_t s1 = cudaEventSynchronize(ev.stop);
      const cudaError_t s2 = cudaDeviceSynchronize();
      const std::uint64_t to = a.now_ns();
      const cudaError_t last = cudaGetLastError();
      for (cudaError_t e : {s1, s2, last})
        if (e != cudaSuccess) throw CandidateFatal(disposition_for(e), std::string("CUDA error during a device-time call: ") + cudaGetErrorName(e));
      float ms = 0;
      MSKB_CUDA_CHECK(cudaEventElapsedTime(&ms, ev.start, ev.stop));
      std::uint64_t busy = 0;
      std::string why;
      if (!a.busy_between(from, to, busy, why)) {
        out = DeviceSamples{};
        out.note = "not available: " + why;
        break;
      }
      out.call_us.push_back(static_cast<double>(ms) * 1e3);
      out.device_us.push_back(static_cast<double>(busy) * 1e-3);
    }
  }
  out.seconds = seconds_since(t0);
  return out;
}

}  // namespace mskb::gpu
