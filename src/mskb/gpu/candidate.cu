// The candidate process: the only process that loads a kernel library. It owns the CUDA context
// the kernel runs in, uploads the inputs the verifier hands it (a sealed shared region), calls
// and times the entry point, and copies what the kernel left in every buffer (and the guard
// zones) into the output region. It decides nothing: the verifier (runner.cu) compares, and only
// the verifier can write to the parent's report pipe. Anything here may have been tampered with
// by the kernel; the verifier treats what it receives accordingly.
#include <cuda_profiler_api.h>
#include <dlfcn.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/util/channel.hpp"
#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/runner.cuh"
#include "mskb/core/instance.hpp"
#include "mskb/core/invoke.hpp"
#include "mskb/util/parallel.hpp"
#include "mskb/util/sandbox.hpp"
#include "mskb/harness/protocol.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/core/task_file.hpp"

namespace mskb::gpu {

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string disposition_for(cudaError_t e) { return e == cudaErrorMemoryAllocation ? "out_of_memory" : "launch_error"; }

// Where what the kernel left goes for the verifier: outputs and read-only inputs into `data` (the
// host output region, or a device region of the same layout that the verifier maps through CUDA
// IPC), guard zones into the host region `host`.
struct OutputTarget {
  unsigned char* data = nullptr;
  cudaMemcpyKind kind = cudaMemcpyDeviceToHost;
  unsigned char* host = nullptr;
};

// Device-side copy of one instance: guarded buffers, pristine copies of inplace inputs, and the
// argument slots for the call. Re-uploading new inputs keeps every device pointer (the second
// seed of a shape runs on the same buffers: a kernel that keys a cache on its pointers fails).
struct DeviceInstance {
  const TaskSpec* spec = nullptr;
  Precision precision = Precision::fp32;
  InstanceLayout layout;
  std::vector<std::unique_ptr<GuardedBuffer>> bufs;
  std::vector<std::unique_ptr<DeviceMemory>> pristine;
  std::vector<Slot> slots;

  DeviceInstance(const TaskSpec& s, Precision p, InstanceLayout l, const std::vector<double>& scalars) : spec(&s), precision(p), layout(std::move(l)) {
    const std::size_t np = s.params.size();
    bufs.resize(np);
    pristine.resize(np);
    slots.resize(np);
    for (std::size_t i = 0; i < np; ++i) {
      const Param& q = s.params[i];
      Slot& slot = slots[i];
      if (!q.is_buffer) {
        const double v = i < scalars.size() ? scalars[i] : 0.0;
        switch (q.scalar) {
          case ScalarType::i32: slot.kind = Slot::i32; slot.i = static_cast<int32_t>(v); break;
          case ScalarType::i64: slot.kind = Slot::i64; slot.l = static_cast<int64_t>(v); break;
          case ScalarType::f32: slot.kind = Slot::f32; slot.f = static_cast<float>(v); break;
          case ScalarType::real:
            if (p == Precision::fp32) {
              slot.kind = Slot::f32;
              slot.f = static_cast<float>(v);
            } else {
              slot.kind = Slot::bf16;
              slot.bits = bf16_bits(static_cast<float>(v));
            }
            break;
        }
        continue;
      }
      const BufferPlace& b = layout.params[i];
      bufs[i] = std::make_unique<GuardedBuffer>(b.bytes, layout.guard_bytes);
      slot.kind = Slot::pointer;
      slot.ptr = bufs[i]->data();
      if (q.role == Role::inplace) pristine[i] = std::make_unique<DeviceMemory>(b.bytes);
    }
  }

  bool fits(const InstanceLayout& l) const {
    if (l.params.size() != layout.params.size() || l.guard_bytes != layout.guard_bytes) return false;
    for (std::size_t i = 0; i < l.params.size(); ++i)
      if (l.params[i].buffer != layout.params[i].buffer || l.params[i].bytes != layout.params[i].bytes) return false;
    return true;
  }

  // New inputs into the same buffers (and scalars into the same slots); guards re-armed. `input`:
  // laid out like the input region, in host memory (the sealed region) or, with
  // cudaMemcpyDeviceToDevice, in the verifier's staging copy mapped through CUDA IPC.
  void upload(const unsigned char* input, const std::vector<double>& scalars, cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
    for (std::size_t i = 0; i < bufs.size(); ++i) {
      const Param& q = spec->params[i];
      if (!q.is_buffer) {
        const double v = i < scalars.size() ? scalars[i] : 0.0;
        if (slots[i].kind == Slot::i32) slots[i].i = static_cast<int32_t>(v);
        if (slots[i].kind == Slot::i64) slots[i].l = static_cast<int64_t>(v);
        if (slots[i].kind == Slot::f32) slots[i].f = static_cast<float>(v);
        if (slots[i].kind == Slot::bf16) slots[i].bits = bf16_bits(static_cast<float>(v));
        continue;
      }
      bufs[i]->arm_guards();
      const BufferPlace& b = layout.params[i];
      if (!b.uploaded || b.bytes == 0) continue;
      MSKB_CUDA_CHECK(cudaMemcpy(bufs[i]->data(), input + b.in_offset, b.bytes, kind));
      if (pristine[i]) MSKB_CUDA_CHECK(cudaMemcpy(pristine[i]->get(), input + b.in_offset, b.bytes, kind));
    }
    MSKB_CUDA_CHECK(cudaDeviceSynchronize());
  }

  // Outside any timed region: poison overwrite outputs, zero accumulate outputs, restore inplace.
  void reset() {
    for (std::size_t i = 0; i < bufs.size(); ++i) {
      if (!bufs[i] || bufs[i]->bytes() == 0) continue;
      switch (spec->params[i].role) {
        case Role::out: MSKB_CUDA_CHECK(cudaMemsetAsync(bufs[i]->data(), kPoisonByte, bufs[i]->bytes(), 0)); break;
        case Role::accumulate: MSKB_CUDA_CHECK(cudaMemsetAsync(bufs[i]->data(), 0, bufs[i]->bytes(), 0)); break;
        case Role::inplace:
          MSKB_CUDA_CHECK(cudaMemcpyAsync(bufs[i]->data(), pristine[i]->get(), bufs[i]->bytes(), cudaMemcpyDeviceToDevice, 0));
          break;
        case Role::in: break;
      }
    }
  }

  // Every written buffer into the output region `to` (the host region, or the device region the
  // verifier maps), on a non-blocking stream: when called before the device synchronize, work the
  // entry point left running on other streams is NOT waited for.
  void copy_outputs(const OutputTarget& to) const {
    cudaStream_t s{};
    MSKB_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaError_t err = cudaSuccess;
    for (std::size_t i = 0; i < bufs.size() && err == cudaSuccess; ++i) {
      if (!bufs[i] || spec->params[i].role == Role::in || bufs[i]->bytes() == 0) continue;
      err = cudaMemcpyAsync(to.data + layout.params[i].out_offset, bufs[i]->data(), bufs[i]->bytes(), to.kind, s);
    }
    if (err == cudaSuccess) err = cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
    MSKB_CUDA_CHECK(err);
  }

  // After the device synchronize: read-only inputs as the kernel left them (into `to`), and the
  // guard zones (always into the host region).
  void copy_inputs_and_guards(const OutputTarget& to) const {
    for (std::size_t i = 0; i < bufs.size(); ++i) {
      if (!bufs[i]) continue;
      const BufferPlace& b = layout.params[i];
      if (spec->params[i].role == Role::in && b.bytes > 0)
        MSKB_CUDA_CHECK(cudaMemcpy(to.data + b.out_offset, bufs[i]->data(), b.bytes, to.kind));
      bufs[i]->copy_guards(to.host + b.guard_offset);
    }
  }
  void copy_all(const OutputTarget& to) const {
    copy_outputs(to);
    copy_inputs_and_guards(to);
  }
};

struct CallOutcome {
  double gap_us = 0;   // host time in cudaDeviceSynchronize after the legacy stream was idle
  double call_us = 0;  // host time from the call to the legacy stream being idle
};

[[noreturn]] void throw_call_error(cudaError_t e) {
  const cudaError_t later = cudaDeviceSynchronize();
  std::string msg = std::string("entry point left CUDA error ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
  if (later != cudaSuccess && later != e) msg += std::string("; then ") + cudaGetErrorName(later);
  throw CandidateFatal(disposition_for(e), msg);
}

// Calls the entry point; any CUDA error it leaves behind is fatal for this process. With
// `snapshot_to`, the outputs are copied as soon as the legacy stream is idle, before the device
// synchronize (the copies are not part of the gap).
CallOutcome call_checked(void* fn, const DeviceInstance& d, const OutputTarget* snapshot_to = nullptr) {
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

// Cold L2 before every sample: a write of 2x the L2 size, and persisting lines reset (a kernel
// cannot keep its data resident across samples through an access-policy window).
class L2Flusher {
 public:
  L2Flusher() {
    int dev = 0, l2 = 0;
    MSKB_CUDA_CHECK(cudaGetDevice(&dev));
    MSKB_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    mem_ = DeviceMemory(2 * static_cast<std::size_t>(std::max(l2, 1 << 20)));
  }
  void flush() {
    MSKB_CUDA_CHECK(cudaCtxResetPersistingL2Cache());
    MSKB_CUDA_CHECK(cudaMemsetAsync(mem_.get(), ++value_ & 0xff, mem_.bytes(), 0));
  }

 private:
  DeviceMemory mem_;
  int value_ = 0;
};

struct Events {
  cudaEvent_t start{}, stop{};
  Events() {
    MSKB_CUDA_CHECK(cudaEventCreate(&start));
    MSKB_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~Events() {
    MSKB_CUDA_CHECK_NOEXCEPT(cudaEventDestroy(start));
    MSKB_CUDA_CHECK_NOEXCEPT(cudaEventDestroy(stop));
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
};

struct RawTiming {
  std::vector<double> samples, walls, gaps;
  double sm_clock_mhz = 0;
  double warmup_s = 0, sampling_s = 0;  // where the timing's wall time went (diagnostics only)
};

// Cold-cache timing: before each sample (outside the timed region) outputs are reset, inplace
// inputs restored and L2 flushed; CUDA events bracket only the entry point on the legacy stream.
// After sample i, `after_sample(i)` may look at the outputs (returns false to stop).
template <class AfterSample>
RawTiming time_entry(void* fn, DeviceInstance& d, const TimingConfig& cfg, L2Flusher& l2, AfterSample&& after_sample) {
  Events ev;
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

void* load_entry(const std::string& library, const std::string& symbol, const TaskSpec& spec, Precision p) {
  void* lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) throw CandidateFatal("launch_error", std::string("cannot load kernel library: ") + dlerror());
  void* fn = dlsym(lib, symbol.c_str());
  if (!fn)
    throw CandidateFatal("missing_entry", "the kernel does not export extern \"C\" " + symbol + " (expected " + spec.signature(p) + ")");
  return fn;
}

std::vector<double> scalars_of(const json& j) {
  std::vector<double> v;
  for (const auto& x : j) v.push_back(x.is_number() ? x.get<double>() : 0.0);
  return v;
}

// The candidate's loop: one request from the verifier at a time, one answer each.
class Candidate {
 public:
  explicit Candidate(Channel ch) : ch_(std::move(ch)) {}

  void serve() {
    Message m;
    while (ch_.recv(m)) {
      const std::string op = m.body.value("op", "");
      if (op == "exit") return;
      if (op == "load") load(m.body);
      else if (op == "context") context();
      else if (op == "identify") ch_.send({{"ok", true}, {"uuid", identify_device().value("uuid", std::string())}});
      else if (op == "instance") instance(m);
      else if (op == "call") call(m.body);
      else if (op == "time") time(m.body);
      else if (op == "host_outputs") host_outputs();
      else throw CandidateFatal("harness_error", "unknown request '" + op + "'");
    }
  }

 private:
  void load(const json& b) {
    // --- sandbox (issue 40), step 1: limits and Landlock while this process is single-threaded,
    // before CUDA starts. The library is dlopened in context(), after step 2 (its constructors run
    // inside the whole sandbox): a missing entry point is reported there.
    library_ = b.at("library").get<std::string>();
    symbol_ = b.at("symbol").get<std::string>();
    try {
      box_.confine_files({library_, b.value("task_file", std::string())});
    } catch (const std::exception& e) {
      throw CandidateFatal("sandbox_setup_failed", std::string("the OS sandbox could not be installed (the kernel was not run): ") + e.what());
    }
    // --- end sandbox
    spec_ = &resolve_task(b.at("task").get<std::string>(), b.value("task_file", std::string()));
    precision_ = parse_precision(b.at("precision").get<std::string>());
    json reply = {{"ok", true}};
    if (b.value("identify", false)) reply["uuid"] = identify_device().value("uuid", std::string());
    ch_.send(reply);
  }
  void context() {
    MSKB_CUDA_CHECK(cudaFree(nullptr));
    l2_ = std::make_unique<L2Flusher>();
    // --- sandbox (issue 40), step 2: seccomp on every thread (CUDA's included) once the context
    // exists; then the kernel library is loaded.
    if (!spec_) throw CandidateFatal("harness_error", "context before load");
    try {
      box_.confine_calls();
    } catch (const std::exception& e) {
      throw CandidateFatal("sandbox_setup_failed", std::string("the OS sandbox could not be installed (the kernel was not run): ") + e.what());
    }
    MSKB_CUDA_CHECK(cudaDeviceSynchronize());  // a CUDA error here: the filter refused something the runtime needs
    fn_ = load_entry(library_, symbol_, *spec_, precision_);
    // --- end sandbox
    ch_.send({{"ok", true}, {"sandbox", box_.level()}});
  }
  // An instance: its inputs from the sealed input region, or (with "device_inputs", an IPC handle,
  // and only the output region passed) from the verifier's device staging copy. Where that copy
  // cannot be mapped, the answer says so and nothing is uploaded: the verifier sends the instance
  // again through the host.
  void instance(Message& m) {
    const bool device_inputs = m.body.contains("device_inputs");
    if (!spec_ || m.fds.size() != (device_inputs ? 1u : 2u))
      throw CandidateFatal("harness_error", "instance before load, or without its regions");
    const std::vector<std::size_t> elements = m.body.at("elements").get<std::vector<std::size_t>>();
    InstanceLayout l = instance_layout(*spec_, precision_, elements, m.body.at("guard_bytes").get<std::size_t>());
    const std::vector<double> scalars = scalars_of(m.body.at("scalars"));
    IpcMapping staged;
    SharedRegion input;
    if (device_inputs) {
      try {
        staged = IpcMapping(m.body.value("device_inputs", std::string()));
      } catch (const std::exception& e) {
        cudaGetLastError();  // not sticky; cleared so the next call's check does not see it
        ch_.send({{"ok", true}, {"device_inputs_failed", e.what()}});
        return;
      }
    } else {
      input = SharedRegion::map(std::move(m.fds[0]), l.input_bytes, false);
    }
    out_ = SharedRegion::map(std::move(m.fds[device_inputs ? 0 : 1]), l.output_bytes, true);
    if (!(m.body.value("reuse", false) && d_ && d_->fits(l))) {
      d_.reset();
      d_ = std::make_unique<DeviceInstance>(*spec_, precision_, l, scalars);
    }
    if (device_inputs) {
      d_->upload(staged.get(), scalars, cudaMemcpyDeviceToDevice);
      staged = IpcMapping();  // closed before the verifier may reuse or free its staging copy
    } else {
      d_->upload(input.data(), scalars);
    }
    json reply = {{"ok", true}};
    // A device output region for the verifier to map (it compares on its own GPU context): the
    // previous one is gone from the verifier's side before it sends a new instance.
    if (m.body.value("device_outputs", false)) {
      if (dev_out_.bytes() != std::max<std::size_t>(l.output_bytes, 1)) {
        dev_out_ = DeviceMemory();
        dev_out_ = DeviceMemory(std::max<std::size_t>(l.output_bytes, 1));
      }
      reply["ipc"] = ipc_handle_hex(dev_out_);
    } else {
      dev_out_ = DeviceMemory();
    }
    ch_.send(reply);
  }
  // The verifier could not map the device region: this instance's outputs go to the host region.
  void host_outputs() {
    dev_out_ = DeviceMemory();
    ch_.send({{"ok", true}});
  }
  OutputTarget target() {
    if (dev_out_.get()) return {static_cast<unsigned char*>(dev_out_.get()), cudaMemcpyDeviceToDevice, out_.data()};
    return {out_.data(), cudaMemcpyDeviceToHost, out_.data()};
  }
  void call(const json& b) {
    if (!d_) throw CandidateFatal("harness_error", "call before instance");
    const bool before_sync = b.value("snapshot", std::string()) == "before_sync";
    d_->reset();
    MSKB_CUDA_CHECK(cudaDeviceSynchronize());
    const OutputTarget to = target();
    const CallOutcome o = call_checked(fn_, *d_, before_sync ? &to : nullptr);
    if (before_sync)
      d_->copy_inputs_and_guards(to);
    else
      d_->copy_all(to);
    ch_.send({{"ok", true}, {"gap_us", o.gap_us}, {"call_us", o.call_us}});
  }
  void time(const json& b) {
    if (!d_ || !l2_) throw CandidateFatal("harness_error", "time before instance");
    const TimingConfig cfg = b.at("config").get<TimingConfig>();
    const std::vector<int> verify_at = b.value("verify_at", std::vector<int>{});
    const RawTiming r = time_entry(fn_, *d_, cfg, *l2_, [&](int i) {
      if (std::find(verify_at.begin(), verify_at.end(), i) == verify_at.end()) return true;
      d_->copy_outputs(target());  // outputs only: the last sample's copy has inputs and guards
      ch_.send({{"snapshot", i}});
      Message reply;
      if (!ch_.recv(reply)) throw CandidateFatal("harness_error", "verifier gone");
      return reply.body.value("op", "") == "continue";
    });
    d_->copy_all(target());  // the last timed call's outputs
    ch_.send({{"ok", true}, {"samples", r.samples}, {"walls", r.walls}, {"gaps", r.gaps}, {"sm_clock_mhz", r.sm_clock_mhz},
              {"warmup_s", r.warmup_s}, {"sampling_s", r.sampling_s}});
  }

  Channel ch_;
  sandbox::CandidateSandbox box_;  // issue 40: step 1 in load(), step 2 in context()
  std::string library_, symbol_;   // loaded in context(), inside the sandbox
  const TaskSpec* spec_ = nullptr;
  Precision precision_ = Precision::fp32;
  void* fn_ = nullptr;
  std::unique_ptr<DeviceInstance> d_;
  std::unique_ptr<L2Flusher> l2_;
  SharedRegion out_;
  DeviceMemory dev_out_;  // the device output region the verifier maps, when it asked for one
};

}  // namespace

int run_candidate(int channel_fd) {
  // This process must not outlive the verifier (a killed verifier leaves no kernel running).
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() == 1) return 3;
  // The verifier's end stays open while the fatal report goes out (the candidate object that
  // threw may be gone by then).
  const Channel reply{UniqueFd(::dup(channel_fd))};
  auto report = [&](const std::string& disposition, const char* message) {
    try {
      reply.send({{"fatal", disposition}, {"message", message}});
    } catch (const std::exception&) {
      // the verifier is gone: nothing more to say
    }
  };
  try {
    Candidate c{Channel{UniqueFd(channel_fd)}};
    c.serve();
    return 0;
  } catch (const CandidateFatal& f) {
    report(f.disposition, f.what());
  } catch (const CudaError& e) {
    // Inside the OS sandbox a refused system call can surface as a CUDA error: said, with the way to name it.
    report(disposition_for(e.code()), (std::string(e.what()) + (::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 2
                                                                    ? " (inside the OS sandbox: a refused system call may be the cause; "
                                                                      "MSKB_SANDBOX_DEBUG=trap names it in the log)"
                                                                    : ""))
                                           .c_str());
  } catch (const std::exception& e) {
    report("harness_error", e.what());
  }
  return 3;
}

// Profile mode (under `ncu --profile-from-start off`): one warm-up call, then exactly one call
// inside cudaProfilerStart/Stop, so the profiler sees the entry point's kernels and nothing of
// the harness (no L2 flush, no clock probe). One process: nothing is judged here.
json run_profile(const RunRequest& req, const std::function<void(const json&)>& emit) {
  const TaskSpec& spec = request_task(req);
  const std::string symbol = req.symbol.empty() ? spec.symbol(req.precision) : req.symbol;
  // --- sandbox (issue 40): as the candidate's, in the same order (under ncu: see level()).
  sandbox::CandidateSandbox box;
  try {
    box.confine_files({req.library, req.task_file});
    MSKB_CUDA_CHECK(cudaFree(nullptr));
    box.confine_calls();
  } catch (const CudaError&) {
    throw;
  } catch (const std::exception& e) {
    throw CandidateFatal("sandbox_setup_failed", std::string("the OS sandbox could not be installed (the kernel was not run): ") + e.what());
  }
  emit({{"event", "sandbox"}, {"level", box.level()}});
  // --- end sandbox
  void* fn = load_entry(req.library, symbol, spec, req.precision);
  if (req.checks.empty()) throw CandidateFatal("harness_error", "profile mode needs one shape");
  const CheckItem& c = req.checks.front();
  const uint64_t seed = c.seeds.empty() ? 1 : c.seeds.front();
  const Args inputs = make_inputs(spec, c.shape, req.precision, seed, nullptr, {}, Outputs::sized);  // no reference here
  std::vector<std::size_t> elements;
  std::vector<double> scalars;
  for (const Arg& a : inputs) {
    elements.push_back(a.data.size());
    scalars.push_back(a.value);
  }
  const InstanceLayout l = instance_layout(spec, req.precision, elements, req.guard_bytes);
  std::vector<unsigned char> input(std::max<std::size_t>(l.input_bytes, 1));
  encode_inputs(spec, req.precision, inputs, l, input.data());
  DeviceInstance d(spec, req.precision, l, scalars);
  d.upload(input.data(), scalars);
  d.reset();
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());
  emit({{"event", "phase"}, {"phase", "call"}, {"shape", c.shape.str()}, {"seed", seed}, {"timeout_s", spec.call_timeout_s}});
  call_checked(fn, d);  // warm-up: module load, handles
  d.reset();
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());
  emit({{"event", "phase"}, {"phase", "profile"}, {"shape", c.shape.str()}, {"seed", seed}, {"timeout_s", spec.call_timeout_s * 100 + 120}});
  MSKB_CUDA_CHECK(cudaProfilerStart());
  const CallOutcome o = call_checked(fn, d);
  MSKB_CUDA_CHECK(cudaProfilerStop());
  return {{"event", "profiled"}, {"shape", c.shape}, {"shape_str", c.shape.str()}, {"call_us", o.call_us}};
}

}  // namespace mskb::gpu
