#include "mskb/gpu/entry_point.cuh"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "mskb/core/invoke.hpp"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/event_pair.cuh"
#include "mskb/gpu/runner.cuh"
#include "mskb/gpu/stopwatch.cuh"
#include "mskb/protocol/events.hpp"

namespace mskb::gpu {

namespace {

[[noreturn]] void throw_call_error(cudaError_t e) {
  const cudaError_t later = cudaDeviceSynchronize();
  std::string msg = std::string("entry point left CUDA error ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
  if (later != cudaSuccess && later != e) msg += std::string("; then ") + cudaGetErrorName(later);
  throw CandidateFatal(disposition_for(e), msg);
}

__global__ void clock_probe_kernel(long long* out, long long spin_ns) {
  unsigned long long t0, t1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  const long long c0 = clock64();
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  } while (static_cast<long long>(t1 - t0) < spin_ns);
  const long long c1 = clock64();
  out[0] = c1 - c0;
  out[1] = static_cast<long long>(t1 - t0);
}

// SM clock in MHz from clock64() against the global nanosecond timer over ~200 us.
double measure_sm_clock_mhz() {
  DeviceMemory m(2 * sizeof(long long));
  clock_probe_kernel<<<1, 1>>>(static_cast<long long*>(m.get()), 200000);
  MSKB_CUDA_CHECK(cudaGetLastError());
  long long h[2];
  MSKB_CUDA_CHECK(cudaMemcpy(h, m.get(), sizeof h, cudaMemcpyDeviceToHost));
  return h[1] > 0 ? static_cast<double>(h[0]) * 1e3 / static_cast<double>(h[1]) : 0.0;
}

}  // namespace

void* load_entry(const std::string& library, const std::string& symbol, const TaskSpec& spec, Precision p) {
  void* lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) throw CandidateFatal(Disposition::launch_error, std::string("cannot load kernel library: ") + dlerror());
  void* fn = dlsym(lib, symbol.c_str());
  if (!fn)
    throw CandidateFatal(Disposition::missing_entry, "the kernel does not export extern \"C\" " + symbol + " (expected " + spec.signature(p) + ")");
  return fn;
}

CallOutcome call_checked(void* fn, const DeviceInstance& d, const OutputTarget* snapshot_to) {
  CallOutcome o;
  const auto t0 = Clock::now();
  invoke(fn, d.slots);
  const cudaError_t last = cudaGetLastError();
  const cudaError_t s1 = cudaStreamSynchronize(0);
  const auto t1 = Clock::now();
  if (snapshot_to && last == cudaSuccess && s1 == cudaSuccess) d.copy_outputs(*snapshot_to);
  const auto t1b = Clock::now();
  const cudaError_t s2 = cudaDeviceSynchronize();
  const auto t2 = Clock::now();
  o.call_us = std::chrono::duration<double, std::micro>(t1 - t0).count();
  o.gap_us = std::chrono::duration<double, std::micro>(t2 - t1b).count();
  for (cudaError_t e : {last, s1, s2})
    if (e != cudaSuccess) throw_call_error(e);
  return o;
}

L2Flusher::L2Flusher() {
  int dev = 0, l2 = 0;
  MSKB_CUDA_CHECK(cudaGetDevice(&dev));
  MSKB_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  mem_ = DeviceMemory(2 * static_cast<std::size_t>(std::max(l2, 1 << 20)));
}

RawTiming time_entry(void* fn, DeviceInstance& d, const TimingConfig& cfg, L2Flusher& l2, const std::function<bool(int)>& after_sample) {
  CudaEventPair ev;
  auto prepare = [&] {
    d.reset();
    if (cfg.flush_l2) l2.flush();
    MSKB_CUDA_CHECK(cudaDeviceSynchronize());
  };
  const auto w0 = Clock::now();
  for (int i = 0; i < cfg.warmup_calls || seconds_since(w0) < cfg.warmup_s; ++i) {
    prepare();
    call_checked(fn, d);
    if (i > 1000 || (i >= 1 && seconds_since(w0) > 2.0)) break;  // long calls: two warm-ups suffice
  }
  RawTiming r;
  r.warmup_s = seconds_since(w0);
  double paused_s = 0;  // the verifier looking at a sample's outputs
  const auto t_begin = Clock::now();
  while (true) {
    prepare();
    const auto h0 = Clock::now();
    MSKB_CUDA_CHECK(cudaEventRecord(ev.start, 0));
    invoke(fn, d.slots);
    MSKB_CUDA_CHECK(cudaEventRecord(ev.stop, 0));
    const cudaError_t s1 = cudaEventSynchronize(ev.stop);
    const auto h1 = Clock::now();
    const cudaError_t s2 = cudaDeviceSynchronize();
    const auto h2 = Clock::now();
    const cudaError_t last = cudaGetLastError();
    for (cudaError_t e : {s1, s2, last})
      if (e != cudaSuccess) throw CandidateFatal(disposition_for(e), std::string("CUDA error during timing: ") + cudaGetErrorName(e));
    float ms = 0;
    MSKB_CUDA_CHECK(cudaEventElapsedTime(&ms, ev.start, ev.stop));
    r.samples.push_back(static_cast<double>(ms) * 1e3);
    r.walls.push_back(std::chrono::duration<double, std::micro>(h2 - h0).count());
    r.gaps.push_back(std::chrono::duration<double, std::micro>(h2 - h1).count());
    const int n = static_cast<int>(r.samples.size());
    const auto p0 = Clock::now();
    const bool go_on = after_sample(n - 1);
    paused_s += seconds_since(p0);
    if (!go_on) break;
    // The budget bounds the time; a call longer than the budget still gets three samples. The
    // noise criterion may stop once min_time_s of sampling (wall clock, as the budget; sample
    // preparation included, the verifier's pauses not) has passed: counting only the kernel's
    // own time held a 5 us kernel to 4000 samples (the max_samples cap) whatever its noise.
    const double sampling_s = seconds_since(t_begin) - paused_s;
    if (n >= cfg.max_samples || (sampling_s >= cfg.max_time_s && n >= 3)) break;
    if (n >= cfg.min_samples && sampling_s >= cfg.min_time_s && n % 5 == 0) {
      const TimingStats t = summarize_samples(r.samples);
      if (t.noise < cfg.target_noise) break;
    }
  }
  r.sampling_s = seconds_since(t_begin) - paused_s;
  r.sm_clock_mhz = measure_sm_clock_mhz();
  return r;
}

}  // namespace mskb::gpu
