// The verifier: the trusted side of an evaluation. It holds the report pipe to the parent, starts
// the candidate process (`mskb-runner --candidate`, candidate.cu: the only process that loads the
// kernel library), generates every input and hands it over in a sealed shared region (or, for an
// instance drawn on its GPU with RunRequest::device_inputs, a staging copy on the GPU that the
// candidate maps through CUDA IPC and copies from, its own copy never exported), computes the
// FP64 reference in its own address space, and compares every output the candidate copies back
// (into a shared host region, or, for an instance on the verifier's GPU, into a device region of
// the candidate's that the verifier maps through CUDA IPC).
// It streams JSON-lines events (each with the request's token) to the parent, which judges
// dispositions and scores. Kernel code never runs here, and this process is not dumpable, so the
// kernel cannot ptrace it or read its memory: a forged message on the channel can at best claim
// outputs the kernel really produced.
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <future>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/util/channel.hpp"
#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/gpu_instance.cuh"
#include "mskb/gpu/kernel_reference.cuh"
#include "mskb/gpu/reference.cuh"
#include "mskb/gpu/runner_child.cuh"
#include "mskb/gpu/runner.cuh"
#include "mskb/util/gpu_lock.hpp"
#include "mskb/util/gpu_sharing.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/instance.hpp"
#include "mskb/core/instance_share.hpp"
#include "mskb/core/matrix_market.hpp"
#include "mskb/util/parallel.hpp"
#include "mskb/util/process.hpp"
#include "mskb/harness/protocol.hpp"
#include "mskb/core/registry.hpp"

namespace mskb::gpu {

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
// Seconds as whole milliseconds, for the GPU lock's hold log labels.
std::string ms(double seconds) { return std::to_string(static_cast<long long>(std::llround(seconds * 1e3))); }

class Reporter {
 public:
  Reporter(int fd, std::string token) : fd_(fd), token_(std::move(token)) {}
  void emit(json j) const {
    if (!token_.empty()) j["token"] = token_;
    const std::string line = j.dump() + "\n";
    const char* p = line.data();
    std::size_t left = line.size();
    while (left > 0) {
      const ssize_t w = ::write(fd_, p, left);
      if (w <= 0) return;  // parent gone: nothing more to say
      p += w;
      left -= static_cast<std::size_t>(w);
    }
  }
  // Heartbeat for the parent's watchdog: the phase we enter and how long it may take.
  void phase(const char* phase, const Shape& s, uint64_t seed, double timeout_s) const {
    emit({{"event", "phase"}, {"phase", phase}, {"shape", s.str()}, {"seed", seed}, {"timeout_s", timeout_s}});
  }

 private:
  int fd_;
  std::string token_;
};

std::string disposition_for(cudaError_t e) { return e == cudaErrorMemoryAllocation ? "out_of_memory" : "launch_error"; }

// The dispositions a candidate may end itself with; anything else it claims is a harness error.
std::string candidate_disposition(const std::string& d) {
  for (const char* ok : {"launch_error", "out_of_memory", "missing_entry", "sandbox_setup_failed"})
    if (d == ok) return d;
  return "harness_error";
}

// The candidate process (the only one that loads the contender's kernel): its messages, its
// fatal reports and its death, judged as the contender's.
class CandidateProcess {
 public:
  explicit CandidateProcess(int report_fd) : child_(start(report_fd)) {}

  void send(const json& j, const std::vector<int>& fds = {}) {
    if (!child_.send(j, fds)) died();
  }
  // After "exit": waits until the candidate has gone (its context with it).
  void wait_exit() { child_.wait_exit(); }
  // The candidate's answer; its death or its fatal report ends the evaluation.
  Message reply() {
    Message m;
    bool got = false;
    try {
      got = child_.recv(m);
    } catch (const std::runtime_error& e) {
      throw CandidateFatal("harness_error", std::string("unreadable message from the kernel's process: ") + e.what());
    }
    if (!got) died();
    if (m.body.contains("fatal"))
      throw CandidateFatal(candidate_disposition(m.body.value("fatal", std::string())), m.body.value("message", std::string()));
    return m;
  }

 private:
  static RunnerChild start(int report_fd) {
    try {
      return RunnerChild("--candidate", report_fd);
    } catch (const std::runtime_error& e) {
      throw CandidateFatal("harness_error", e.what());
    }
  }
  [[noreturn]] void died() {
    bool signaled = false;
    const std::string how = child_.reap(signaled);
    // issue 40: killed by the seccomp filter (SIGSYS): final; the call is named in the log in debug mode.
    if (how == RunnerChild::kSandboxKill)
      throw CandidateFatal("sandbox_violation", "the kernel's process " + how +
                                                    ": exec, fork, a socket, ptrace, a signal to another process, ... "
                                                    "(MSKB_SANDBOX_DEBUG=trap names the call in the runner's log)");
    if (signaled) throw CandidateFatal("crashed", "the kernel's process " + how);
    throw CandidateFatal("crashed", "the kernel's process " + how + " in the middle of the evaluation");
  }

  RunnerChild child_;
};

// Compares what the candidate copied back: guard zones, read-only inputs, every output element.
// Returns a disposition ("passed", "unwritten_output", "wrong_result", "input_mutated",
// "out_of_bounds") and fills `detail`.
// `device_out`: for an instance on the verifier's GPU, the candidate's device output region mapped
// here (outputs and read-only inputs are then compared on the GPU, guard zones still in `out`).
std::string verify(const TaskSpec& s, Precision p, const InstanceLayout& l, const unsigned char* input, unsigned char* out,
                   const Args& expected, const GpuInstance* gpu, const unsigned char* device_out, const Tolerance& tol, json& detail,
                   bool outputs_only = false) {
  if (!gpu) device_out = nullptr;
  detail["compared_on"] = device_out ? "gpu" : (gpu ? "gpu_from_host" : "host");
  for (std::size_t i = 0; i < s.params.size() && !outputs_only; ++i) {
    const BufferPlace& b = l.params[i];
    if (!b.buffer) continue;
    const unsigned char* g = out + b.guard_offset;
    for (std::size_t k = 0; k < 2 * l.guard_bytes; ++k)
      if (g[k] != 0xFF) {
        detail["message"] = "wrote outside buffer '" + s.params[i].name + "' (guard zone modified)";
        return "out_of_bounds";
      }
  }
  for (std::size_t i = 0; i < s.params.size() && !outputs_only; ++i) {
    const BufferPlace& b = l.params[i];
    if (!b.buffer || s.params[i].role != Role::in || device_out) continue;
    if (std::memcmp(out + b.out_offset, input + b.in_offset, b.bytes) != 0) {
      detail["message"] = "modified read-only input '" + s.params[i].name + "'";
      return "input_mutated";
    }
  }
  if (device_out && !outputs_only) {
    if (const std::string name = gpu->mutated_input(l, device_out); !name.empty()) {
      detail["message"] = "modified read-only input '" + name + "'";
      return "input_mutated";
    }
  }
  const auto compare_on_host = [&](const Args& want) {
    CompareResult c;
    for (std::size_t i = 0; i < s.params.size(); ++i) {
      const Param& q = s.params[i];
      const BufferPlace& b = l.params[i];
      if (!b.buffer || q.role == Role::in) continue;
      // Only overwrite outputs were poisoned.
      compare_encoded(q.name, out + b.out_offset, b.bytes, q.elem, p, q.role == Role::out ? 0xFF : -1, want[i].data, tol,
                      elem_is_integer(q.elem), c);
    }
    return c;
  };
  // An instance on the verifier's GPU is compared there; a failure is compared again on the host
  // for its first mismatches (the same verdict and counts, the comparison being the same).
  CompareResult r = gpu ? gpu->compare(l, device_out ? device_out : out, tol, device_out != nullptr) : compare_on_host(expected);
  if (gpu && !r.ok) {
    if (device_out)
      for (std::size_t i = 0; i < s.params.size(); ++i) {
        const BufferPlace& b = l.params[i];
        if (b.buffer && s.params[i].role != Role::in && b.bytes > 0)
          MSKB_CUDA_CHECK(cudaMemcpy(out + b.out_offset, device_out + b.out_offset, b.bytes, cudaMemcpyDeviceToHost));
      }
    r = compare_on_host(gpu->expected_on_host());
  }
  detail["checked"] = r.checked;
  detail["mismatches"] = r.mismatches;
  detail["nans"] = r.nans;
  detail["unwritten"] = r.unwritten;
  detail["max_abs_err"] = r.max_abs_err;
  detail["max_err_over_tol"] = std::isfinite(r.max_rel_err) ? json(r.max_rel_err) : json("inf");
  detail["atol"] = tol.atol;
  detail["rtol"] = tol.rtol;
  if (r.ok) return "passed";
  detail["param"] = r.param;
  json bad = json::array();
  for (std::size_t k = 0; k < r.first_bad.size(); ++k) {
    auto num = [](double x) { return std::isfinite(x) ? json(x) : json(std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf")); };
    bad.push_back({{"index", r.first_bad[k]}, {"got", num(r.first_bad_got[k])}, {"want", num(r.first_bad_want[k])}});
  }
  detail["first_mismatches"] = bad;
  if (r.unwritten > 0) {
    detail["message"] = std::to_string(r.unwritten) + " of " + std::to_string(r.checked) + " elements of '" + r.param +
                        "' were never written";
    return "unwritten_output";
  }
  detail["message"] = std::to_string(r.mismatches) + " of " + std::to_string(r.checked) + " elements outside tolerance (" +
                      std::to_string(r.nans) + " NaN) in '" + r.param + "'";
  return "wrong_result";
}

bool uses_gpu_reference(const TaskSpec& spec, const Shape& shape, double min_complexity) {
  return find_gpu_reference(spec.name) != nullptr &&
         static_cast<double>(spec.complexity(shape)) * spec.cpu_reference_weight >= min_complexity;
}

// Turns the inputs into the expected outputs in place: no copy of what can be gigabytes of FP64
// data on the large sweeps. Returns which reference ran. `keep`: a GPU reference may leave outputs
// on the device there (GpuReferenceFn), for a GpuInstance to take over.
std::string compute_expected_in_place(const TaskSpec& spec, const Shape& shape, Precision p, Args& a, double gpu_min_complexity,
                                      DeviceOutputs* keep = nullptr) {
  if (uses_gpu_reference(spec, shape, gpu_min_complexity)) {
    find_gpu_reference(spec.name)(shape, p, a, keep);
    return "gpu_fp64";
  }
  spec.reference(shape, p, a);
  return "cpu_fp64";
}

// A synchronized call's device synchronize returns within a few microseconds; a probe gap under
// this needs no second look (every unsynced threshold of the policy is far above it).
constexpr double kCleanGapUs = 50.0;

// One instance as the verifier holds it: the inputs it generated (turned into the expected
// outputs in place once the reference ran), the sealed input region the candidate uploads from,
// the output region the candidate copies into.
struct HeldInstance {
  InstanceLayout layout;
  Args expected;
  std::vector<std::size_t> elements;
  std::vector<double> scalars;
  SharedRegion input, output;
  std::unique_ptr<GpuInstance> gpu;  // the instance on the verifier's GPU (expected then stays empty)
  // False for a GPU instance whose inputs have not been downloaded into `input` (which is then
  // unsealed and never handed to the candidate): they go to it device to device.
  bool inputs_on_host = true;
  std::string ref_kind;  // empty until the reference ran
  double generate_s = 0, reference_s = 0;
  bool shared = false;  // copied from another verifier's (RunRequest::instance_share_dir)
};

bool uses_gpu_instance(const TaskSpec& spec, const RunRequest& req, const Shape& shape) {
  return gpu_instance_possible(spec, shape) && static_cast<double>(spec.complexity(shape)) >= req.gpu_instance_min_complexity;
}

// An instance drawn, referenced and kept on the verifier's GPU: only its typed inputs reach the
// host, in the input region, and with RunRequest::device_inputs not even they (until a fallback
// needs them: Verifier::inputs_to_host). GPU work: never run ahead of a timing.
std::unique_ptr<HeldInstance> prepare_gpu_instance(const TaskSpec& spec, const RunRequest& req, const CheckItem& c, uint64_t seed) {
  auto h = std::make_unique<HeldInstance>();
  const auto t0 = Clock::now();
  Rng rng(instance_seed(spec, c.shape, seed));
  const UniformDraw d = draw_uniform(spec, c.shape, rng);
  h->elements = d.elements;
  h->scalars.assign(spec.params.size(), 0.0);
  for (std::size_t i = 0; i < spec.params.size(); ++i)
    if (!spec.params[i].is_buffer) h->scalars[i] = round_scalar(spec.params[i].scalar, req.precision, d.scalars[i]);
  h->layout = instance_layout(spec, req.precision, h->elements, req.guard_bytes);
  h->input = SharedRegion::create("mskb-input", h->layout.input_bytes);
  h->gpu = std::make_unique<GpuInstance>(spec, req.precision, c.shape, d, h->scalars, find_device_reference(spec.name));
  h->inputs_on_host = !req.device_inputs;
  if (h->inputs_on_host) {
    h->gpu->download_inputs(h->layout, h->input.data());
    h->input.seal();
  }
  h->output = SharedRegion::create("mskb-output", h->layout.output_bytes);
  h->ref_kind = "gpu_fp64";
  h->generate_s = seconds_since(t0);  // drawing and the reference, both on the GPU
  return h;
}

// Everything of an instance that is host work: inputs, their encoding into the sealed input
// region, the output region and, where it runs on the CPU, the FP64 reference. `storage`: the
// buffers of a dropped instance, reused.
std::unique_ptr<HeldInstance> prepare_instance(const TaskSpec& spec, const RunRequest& req, const CheckItem& c, uint64_t seed,
                                               const SparseMatrix* matrix, Args storage) {
  auto h = std::make_unique<HeldInstance>();
  const auto t0 = Clock::now();
  // A GPU reference writes every output (downloaded over the host's, or kept on the GPU): the
  // host's are only sized for it, not zeroed (on the largest SpMM shapes, 8 GB an instance).
  const bool kernel_reference = !req.reference_library.empty();
  const bool gpu_reference = !kernel_reference && uses_gpu_reference(spec, c.shape, req.gpu_reference_min_complexity);
  h->expected = make_inputs(spec, c.shape, req.precision, seed, c.shape.has("matrix") ? matrix : nullptr, std::move(storage),
                            gpu_reference ? Outputs::sized : Outputs::zeroed);
  for (const Arg& a : h->expected) {
    h->elements.push_back(a.data.size());
    h->scalars.push_back(a.value);
  }
  h->layout = instance_layout(spec, req.precision, h->elements, req.guard_bytes);
  h->input = SharedRegion::create("mskb-input", h->layout.input_bytes);
  encode_inputs(spec, req.precision, h->expected, h->layout, h->input.data());
  h->input.seal();
  h->output = SharedRegion::create("mskb-output", h->layout.output_bytes);
  h->generate_s = seconds_since(t0);
  if (!gpu_reference && !kernel_reference) {  // a GPU reference or a reference kernel: at check time
    const auto t1 = Clock::now();
    h->ref_kind = compute_expected_in_place(spec, c.shape, req.precision, h->expected, req.gpu_reference_min_complexity);
    h->reference_s = seconds_since(t1);
  }
  return h;
}

// Prepares the instances of a request in the order the verifier checks them, one ahead: while
// the candidate runs (uploads, checked calls, timing) the host builds the next instance with all
// but two of its CPUs at a lower priority (prepare_yielding: the candidate's launching thread gets
// a core whenever it wants one). GPU references are never run ahead: they would share the GPU with
// a timing.
class InstanceQueue {
 public:
  struct Job {
    const CheckItem* item = nullptr;
    uint64_t seed = 0;
  };
  InstanceQueue(const TaskSpec& spec, const RunRequest& req, const SparseMatrix* matrix)
      : spec_(spec), req_(req), matrix_(matrix), share_(req.instance_share_dir, req.instance_share_consumers) {
    for (const CheckItem& c : req.checks)
      for (uint64_t seed : c.seeds) jobs_.push_back({&c, seed});
  }
  InstanceQueue(const InstanceQueue&) = delete;
  InstanceQueue& operator=(const InstanceQueue&) = delete;
  ~InstanceQueue() {
    if (ahead_.valid()) ahead_.wait();
  }

  // The instance of (c, seed), `dropped`'s buffers reused; starts preparing the job after it.
  std::unique_ptr<HeldInstance> take(const CheckItem& c, uint64_t seed, std::unique_ptr<HeldInstance> dropped) {
    std::size_t at = 0;
    while (at < jobs_.size() && !(jobs_[at].item == &c && jobs_[at].seed == seed)) ++at;
    std::unique_ptr<HeldInstance> h;
    if (ahead_.valid()) {
      if (ahead_at_ == at) {
        h = ahead_.get();  // rethrows the preparation's error
      } else {
        // A job skipped after a failure: its buffers are reused, an error preparing it is moot.
        try {
          std::unique_ptr<HeldInstance> a = ahead_.get();
          if (a && !dropped) dropped = std::move(a);
        } catch (const std::exception&) {
        }
      }
    }
    Args storage = dropped ? std::move(dropped->expected) : Args{};
    dropped.reset();  // its regions go now, before the next instance's are created
    if (!h && uses_gpu_instance(spec_, req_, c.shape)) h = prepare_gpu_instance(spec_, req_, c, seed);
    if (!h) {
      // Not prepared ahead (the first job, every large-sweep one, one after a skip): prepared now
      // as one ahead is, the verifier waiting for it. The large sweep's instances (never prepared
      // ahead: two at once would double the memory of the largest shapes) were made here on the
      // main thread's share of the CPUs (RunRequest::host_threads, 2 per verifier in a suite's
      // timing phase on 16 CPUs), which set the pace of the large sweep.
      h = std::async(std::launch::async, [&] { return prepare_yielding(c, seed, std::move(storage)); }).get();
      storage = Args{};
    }
    if (at + 1 < jobs_.size() && jobs_[at + 1].item->sweep != Sweep::large && !uses_gpu_instance(spec_, req_, jobs_[at + 1].item->shape)) {
      ahead_at_ = at + 1;
      const Job next = jobs_[at + 1];
      ahead_ = std::async(std::launch::async, [this, next, st = std::move(storage)]() mutable {
        return prepare_yielding(*next.item, next.seed, std::move(st));
      });
    }
    return h;
  }

 private:
  // Host preparation on the calling thread (one of its own), with all CPUs but two and at nice
  // +kPrepareNice (its workers inherit it): it takes every CPU left idle, and yields at once to a
  // timed process's launching thread (this verifier's candidate while it is timed, or another
  // evaluation's on the same host) and to the verifiers' main threads.
  static constexpr int kPrepareNice = 10;
  // With a share (RunRequest::instance_share_dir), the instance another verifier of the group
  // prepared is copied in; the first to come prepares it while the others wait, and publishes it.
  std::unique_ptr<HeldInstance> prepare_yielding(const CheckItem& c, uint64_t seed, Args storage) {
    lower_thread_priority(kPrepareNice);
    const ParallelCap cap(std::max(1, available_cpus() - 2));
    InstanceShare::Turn turn = share_.take(share_key(c, seed));
    if (turn.found()) {
      // An entry that does not fit this request (it never should: the key says what decides it)
      // is prepared here instead, never half used.
      try {
        return from_share(turn, std::move(storage));
      } catch (const std::exception&) {
        storage = Args{};
      }
    }
    std::unique_ptr<HeldInstance> h = prepare_instance(spec_, req_, c, seed, matrix_, std::move(storage));
    if (turn.producing()) {
      const auto t0 = Clock::now();
      turn.publish(h->expected, h->input.data(), h->layout.input_bytes, h->ref_kind, h->generate_s, h->reference_s, share_keep(c, *h));
      h->generate_s += seconds_since(t0);  // the copy out is this verifier's host work too
    }
    return h;
  }

  // Everything that decides what prepare_instance makes of (c, seed) in this run.
  std::string share_key(const CheckItem& c, uint64_t seed) const {
    if (!share_.active()) return {};
    return "mskb-instance-v1|" + spec_.name + "|" + req_.task_file + "|" + to_string(req_.precision) + "|" + c.shape.str() + "|" +
           std::to_string(seed) + "|" + req_.matrix_path + "|" + std::to_string(req_.guard_bytes) + "|" +
           std::to_string(req_.gpu_reference_min_complexity) + "|" + req_.reference_library;
  }

  // What the others need of an instance (InstanceShare::Keep). After a CPU reference: the
  // expected outputs (out, accumulate, inplace), not the read-only inputs, which nothing reads
  // in FP64 again (verify and GpuInstance take them from the encoded input region). Before a
  // reference made at check time: every input, and the outputs only sized where a GPU reference
  // will write them (Outputs::sized), else as prepared.
  std::vector<InstanceShare::Keep> share_keep(const CheckItem& c, const HeldInstance& h) const {
    const bool gpu_reference = req_.reference_library.empty() && uses_gpu_reference(spec_, c.shape, req_.gpu_reference_min_complexity);
    std::vector<InstanceShare::Keep> keep(h.expected.size(), InstanceShare::Keep::data);
    for (std::size_t i = 0; i < spec_.params.size() && i < keep.size(); ++i) {
      const Param& q = spec_.params[i];
      if (!q.is_buffer) continue;
      const bool output = q.role == Role::out || q.role == Role::accumulate;
      if (!h.ref_kind.empty() && q.role == Role::in) keep[i] = InstanceShare::Keep::none;
      if (h.ref_kind.empty() && output && gpu_reference) keep[i] = InstanceShare::Keep::sized;
    }
    return keep;
  }

  // The instance as another verifier prepared it (what share_keep kept of its FP64 inputs and
  // expected outputs) and its encoded inputs, copied; a reference made at check time runs here.
  std::unique_ptr<HeldInstance> from_share(const InstanceShare::Turn& turn, Args storage) {
    auto h = std::make_unique<HeldInstance>();
    const auto t0 = Clock::now();
    h->expected = std::move(storage);
    turn.copy_args(h->expected);
    h->elements = turn.elements();  // read-only inputs not kept are left empty
    for (const Arg& a : h->expected) h->scalars.push_back(a.value);
    h->layout = instance_layout(spec_, req_.precision, h->elements, req_.guard_bytes);
    if (h->layout.input_bytes != turn.input_bytes()) throw std::runtime_error("a shared instance's input region does not match its inputs");
    h->input = SharedRegion::create("mskb-input", h->layout.input_bytes);
    turn.copy_input(h->input.data());
    h->input.seal();
    h->output = SharedRegion::create("mskb-output", h->layout.output_bytes);
    h->ref_kind = turn.ref_kind();
    h->generate_s = seconds_since(t0);  // this verifier's own host work: the copies
    h->shared = true;
    return h;
  }

  const TaskSpec& spec_;
  const RunRequest& req_;
  const SparseMatrix* matrix_;
  InstanceShare share_;
  std::vector<Job> jobs_;
  std::future<std::unique_ptr<HeldInstance>> ahead_;
  std::size_t ahead_at_ = 0;
};

// The timing checks the verifier can make on its own: the samples are the candidate's claim, the
// wall clock of the whole timing phase is the verifier's observation. Returns "" or the reason.
std::string timing_inconsistency(const std::vector<double>& samples, const std::vector<double>& walls, const std::vector<double>& gaps,
                                 double observed_us) {
  if (samples.empty()) return "no timed samples reported";
  if (walls.size() != samples.size() || gaps.size() != samples.size()) return "sample, wall and gap counts differ";
  double sum = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (!std::isfinite(samples[i]) || samples[i] <= 0 || !std::isfinite(walls[i]) || !std::isfinite(gaps[i]) || gaps[i] < 0)
      return "a timed sample is not a positive finite time";
    // The events sit inside the host bracket of the same call (timer granularity aside).
    if (walls[i] + 2.0 < samples[i]) return "a sample's event time exceeds its own wall-clock bracket";
    sum += walls[i];
  }
  if (sum > observed_us * 1.02 + 1000.0)
    return "the claimed calls take longer (" + std::to_string(static_cast<long long>(sum)) + " us) than the timing phase the verifier observed (" +
           std::to_string(static_cast<long long>(observed_us)) + " us)";
  return "";
}

class Verifier {
 public:
  Verifier(const RunRequest& req, const Reporter& rep, int report_fd)
      : req_(req), rep_(rep), spec_(request_task(req)), gpu_lock_(req.gpu_lock, req.gpu_lock_log), cand_(report_fd), kref_(req, spec_, report_fd) {}

  void run() {
    // Host work on the main thread (CPU references, host comparisons) keeps to the share of the
    // CPUs this evaluation was given when others share the host.
    const ParallelCap cap(req_.host_threads);
    // Loading the kernel and creating the contexts is GPU work: never beside another's timing.
    // With RunRequest::load_before_lock (a shipped kernel), the library is loaded first (no CUDA
    // context yet) and only the contexts wait for the lock.
    GpuLock::Guard gpu;
    if (!req_.load_before_lock) gpu = wait_for_gpu(false, Shape{}, 0, 0);
    rep_.phase("load", Shape{}, 0, 120);
    auto t_step = Clock::now();
    // The hold log (MSKB_GPU_LOCK_LOG): where this hold's time went, step by step.
    std::string steps = "load";
    const auto step = [&](const char* name) {
      if (req_.gpu_lock_log.empty()) return;
      steps += std::string(" ") + name + "_ms=" + ms(seconds_since(t_step));
      t_step = Clock::now();
    };
    // Which GPU the kernel's process sees (for NVML, below; only where something is timed). It
    // initializes the CUDA driver: under the lock, so after the library where that comes first.
    const bool identify = !req_.timings.empty();
    cand_.send({{"op", "load"}, {"task", req_.task}, {"task_file", req_.task_file}, {"precision", to_string(req_.precision)}, {"library", req_.library},
                {"symbol", req_.symbol.empty() ? spec_.symbol(req_.precision) : req_.symbol}, {"identify", identify && !req_.load_before_lock}});
    Message loaded = cand_.reply();
    if (req_.load_before_lock) {
      if (!req_.gpu_lock_log.empty()) steps += " library_outside_ms=" + ms(seconds_since(t_step));  // not held: the hold starts below
      gpu = wait_for_gpu(false, Shape{}, 0, 0);
      rep_.phase("load", Shape{}, 0, 120);
      t_step = Clock::now();
      if (identify) {
        cand_.send({{"op", "identify"}});
        loaded = cand_.reply();
      }
      step("identify");
    } else {
      step("library");
    }
    // Which processes hold a context on this GPU before and after ours exist (ours are the entries
    // that appear): any other one around a timing is reported with it. Only where something is
    // timed (NVML's initialization is not free).
    if (!req_.timings.empty()) sharing_ = std::make_unique<GpuSharing>(loaded.body.value("uuid", std::string()));
    step("nvml");
    // The kernel's context and this process's own (for FP64 GPU references; it exists before any
    // timing, and counts as ours) are created at the same time: the request goes out first.
    cand_.send({{"op", "context"}});
    for (const CheckItem& c : req_.checks)
      if (uses_gpu_reference(spec_, c.shape, req_.gpu_reference_min_complexity) || compares_on_gpu(c.shape)) {
        MSKB_CUDA_CHECK(cudaFree(nullptr));
        break;
      }
    step("verifier_context");
    rep_.emit({{"event", "sandbox"}, {"level", cand_.reply().body.value("sandbox", std::string("none"))}});  // issue 40: in every report
    step("kernel_context");  // what the kernel's context took beyond ours
    kref_.start();  // a task file's reference kernel: its process and context are ours too
    if (sharing_) sharing_->context_created();
    step("other");
    gpu.label(steps);
    gpu.release();
    if (!req_.matrix_path.empty()) matrix_ = std::make_unique<SparseMatrix>(read_matrix_market(req_.matrix_path));
    queue_ = std::make_unique<InstanceQueue>(spec_, req_, matrix_.get());

    int failures = 0;
    for (const CheckItem& c : req_.checks) {
      const bool timed = is_timed(req_, c);
      for (std::size_t k = 0; k < c.seeds.size(); ++k) {
        const uint64_t seed = c.seeds[k];
        json detail;
        std::string ref_kind;
        double gap = 0, call_us = 0;
        const json seconds = check(c, seed, k > 0, detail, ref_kind, gap, call_us);
        const std::string disp = detail.value("disposition", std::string("harness_error"));
        detail.erase("disposition");
        rep_.emit({{"event", "check"}, {"shape", c.shape}, {"shape_str", c.shape.str()}, {"sweep", c.sweep}, {"seed", seed},
                   {"disposition", disp}, {"reference", ref_kind}, {"gap_us", gap}, {"call_us", call_us}, {"detail", detail},
                   {"seconds", seconds}});
        if (disp != "passed") {
          if (++failures >= 3) return;
          break;
        }
        if (!timed || k + 1 != c.seeds.size() || failures > 0) continue;
        time(c, seed);
      }
    }
  }

  // The candidate exits (its context goes) and this process's GPU memory is freed while the GPU
  // lock is held shared: a teardown is GPU work too.
  void finish() {
    GpuLock::Guard gpu = wait_for_gpu(false, Shape{}, 0, 0);
    rep_.phase("exit", Shape{}, 0, 120);
    const auto t0 = Clock::now();
    cand_.send({{"op", "exit"}});
    cand_.wait_exit();
    const double kernel_exit_s = seconds_since(t0);
    device_out_ = IpcMapping();
    staging_ = DeviceMemory();
    held_.reset();
    if (gpu.logged()) gpu.label("exit kernel_exit_ms=" + ms(kernel_exit_s) + " free_ms=" + ms(seconds_since(t0) - kernel_exit_s));
  }

 private:
  // The GPU lock (shared, or exclusive for a timing). Waiting for it is another evaluation's time,
  // not this kernel's: the watchdog gets a phase of its own, then the phase we were in again.
  GpuLock::Guard wait_for_gpu(bool exclusive, const Shape& shape, uint64_t seed, double resume_timeout_s) {
    if (!gpu_lock_.enabled()) return {};
    rep_.phase("gpu_wait", shape, seed, 3600);
    GpuLock::Guard g = exclusive ? gpu_lock_.exclusive() : gpu_lock_.shared();
    if (resume_timeout_s > 0) rep_.phase("generate", shape, seed, resume_timeout_s);
    return g;
  }

  // Takes the instance of (c, seed) from the queue and hands it to the candidate; `reuse`: into the
  // buffers of the previous seed of the same shape.
  // Whether the outputs of (c's shape) are compared on our GPU: an instance drawn there, or a
  // host-made one from RunRequest::gpu_compare_min_complexity (while CUDA IPC works).
  bool compares_on_gpu(const Shape& shape) const {
    if (uses_gpu_instance(spec_, req_, shape)) return true;
    return req_.gpu_compare_min_complexity >= 0 && ipc_unavailable_.empty() && gpu_compare_possible(spec_) &&
           static_cast<double>(spec_.complexity(shape)) >= req_.gpu_compare_min_complexity;
  }

  // A GPU instance's inputs, not yet downloaded, into its input region, which is then sealed (the
  // candidate has not had its descriptor: nothing else can have mapped it writable).
  void inputs_to_host() {
    if (!held_->gpu || held_->inputs_on_host) return;
    held_->gpu->download_inputs(held_->layout, held_->input.data());
    held_->input.seal();
    held_->inputs_on_host = true;
  }

  // Sends the held instance to the candidate: its inputs from our staging copy on the GPU (a GPU
  // instance with RunRequest::device_inputs, while CUDA IPC works) or from the sealed input region.
  void send_instance(const CheckItem& c, uint64_t seed, bool reuse) {
    json msg = {{"op", "instance"},         {"shape", c.shape.str()}, {"seed", seed},
                {"elements", held_->elements}, {"scalars", held_->scalars}, {"guard_bytes", req_.guard_bytes},
                {"reuse", reuse},           {"device_outputs", compares_on_gpu(c.shape) && ipc_unavailable_.empty()}};
    if (held_->gpu && !held_->inputs_on_host && ipc_unavailable_.empty()) {
      held_->gpu->stage_inputs(held_->layout, staging_);
      msg["device_inputs"] = ipc_handle_hex(staging_);
      cand_.send(msg, {held_->output.fd()});
      return;
    }
    inputs_to_host();
    cand_.send(msg, {held_->input.fd(), held_->output.fd()});
  }

  void load_instance(const CheckItem& c, uint64_t seed, bool reuse) {
    device_out_ = IpcMapping();  // closed before the candidate may free the region
    held_ = queue_->take(c, seed, std::move(held_));
    sent_ = {&c, seed};
    send_instance(c, seed, reuse);
  }

  // The candidate's answer to an instance: for an instance on our GPU, the device output region
  // it exports, mapped here. Where CUDA IPC does not work, that instance and the rest of the
  // evaluation use the host region (the same checks, slower).
  // Where the candidate could not map our staging copy of the inputs, the instance goes again
  // through the host (and so does every later one: the IPC is not retried).
  void instance_uploaded() {
    Message up = cand_.reply();
    if (up.body.contains("device_inputs_failed")) {
      ipc_unavailable_ = up.body.value("device_inputs_failed", std::string("CUDA IPC unavailable"));
      send_instance(*sent_.item, sent_.seed, true);
      up = cand_.reply();
    }
    if (!held_->gpu) return;
    if (!up.body.contains("ipc")) {
      inputs_to_host();  // compared through the host region: its read-only inputs against these
      return;
    }
    try {
      device_out_ = IpcMapping(up.body.value("ipc", std::string()));
    } catch (const std::exception& e) {
      ipc_unavailable_ = e.what();
      inputs_to_host();  // the host comparison of read-only inputs needs them there
      cand_.send({{"op", "host_outputs"}});
      cand_.reply();
    }
  }

  std::string judge_outputs(const CheckItem& c, json& detail, bool outputs_only = false) {
    return verify(spec_, req_.precision, held_->layout, held_->input.data(), held_->output.data(), held_->expected, held_->gpu.get(),
                  device_out_.get(), spec_.tolerance(c.shape, req_.precision), detail, outputs_only);
  }

  // One check: generate, hand over, reference (while the candidate uploads), the checked call,
  // then gap probes whose outputs are judged too. The disposition goes into detail["disposition"].
  json check(const CheckItem& c, uint64_t seed, bool reuse, json& detail, std::string& ref_kind, double& gap, double& call_us) {
    const double generate_timeout_s = 120.0 + static_cast<double>(spec_.complexity(c.shape)) * 1e-8;
    rep_.phase("generate", c.shape, seed, generate_timeout_s);
    const auto t_generate = Clock::now();
    // The GPU lock, shared, from the first GPU work of the check to its end: an instance drawn on
    // our GPU is GPU work already; a host instance is waited for without it.
    GpuLock::Guard gpu;
    if (uses_gpu_instance(spec_, req_, c.shape)) {
      gpu = wait_for_gpu(false, c.shape, seed, generate_timeout_s);
    } else if (held_ && held_->gpu) {
      // The previous instance's GPU memory goes under the lock (freeing is GPU work), the next
      // host instance is waited for without it.
      GpuLock::Guard freeing = wait_for_gpu(false, c.shape, seed, generate_timeout_s);
      freeing.label("free");
      device_out_ = IpcMapping();
      held_->gpu.reset();
      staging_ = DeviceMemory();
    }
    load_instance(c, seed, reuse);
    if (!gpu.held()) gpu = wait_for_gpu(false, c.shape, seed, generate_timeout_s);
    const double waited_s = seconds_since(t_generate);
    // A GPU reference runs now, while the candidate uploads; a CPU one ran with the inputs.
    const auto t_reference = Clock::now();
    // A host-made instance compared on our GPU: a GPU reference leaves its outputs there (they
    // would cross to the host and back), the GpuInstance below takes them over.
    const bool on_gpu = !held_->gpu && compares_on_gpu(c.shape);
    DeviceOutputs kept;
    if (on_gpu) kept.out.resize(spec_.params.size());
    if (held_->ref_kind.empty()) {
      held_->ref_kind = kref_.active() ? kref_.compute(c.shape, seed, held_->layout, held_->input, held_->elements, held_->scalars, held_->expected)
                                       : compute_expected_in_place(spec_, c.shape, req_.precision, held_->expected,
                                                                   req_.gpu_reference_min_complexity, on_gpu ? &kept : nullptr);
      held_->reference_s = seconds_since(t_reference);
    }
    ref_kind = held_->ref_kind;
    // A host-made instance compared on our GPU: its read-only inputs and expected outputs go up
    // once (unless the reference left them there); every comparison of this instance is then made there.
    if (on_gpu)
      held_->gpu = std::make_unique<GpuInstance>(spec_, req_.precision, held_->layout, held_->elements, held_->input.data(), held_->expected, &kept);
    instance_uploaded();
    const auto t_check = Clock::now();
    rep_.phase("call", c.shape, seed, spec_.call_timeout_s);
    cand_.send({{"op", "call"}, {"snapshot", "before_sync"}});
    const Message called = cand_.reply();
    gap = called.body.value("gap_us", 0.0);
    call_us = called.body.value("call_us", 0.0);
    std::string disp = judge_outputs(c, detail);
    if (disp == "passed") {
      // The gap above is measured after the output snapshot, whose copies can hide side-stream
      // work that ends while they run (seen on the H200: a 0.3 ms diagnostic on a non-blocking
      // stream passed in fp32). Probe calls with nothing between the legacy stream going idle and
      // the device synchronize measure it cleanly; their outputs are judged as well. Work left
      // running shows in every probe; a hiccup of the candidate's thread in one: a large gap is
      // probed again, up to three times, and the smallest is the call's gap.
      for (int probe_no = 0; probe_no < 3; ++probe_no) {
        rep_.phase("call", c.shape, seed, spec_.call_timeout_s);
        cand_.send({{"op", "call"}, {"snapshot", "after_sync"}});
        const double g = cand_.reply().body.value("gap_us", 0.0);
        gap = probe_no == 0 ? g : std::min(gap, g);
        json probe_detail;
        const std::string pd = judge_outputs(c, probe_detail);
        if (pd != "passed") {
          disp = pd;
          detail = probe_detail;
          detail["message"] = "on a repeated call with the same inputs: " + probe_detail.value("message", std::string());
          break;
        }
        if (gap < kCleanGapUs) break;
      }
    }
    if (reuse && disp != "passed")
      detail["message"] = detail.value("message", std::string()) + " (new inputs in the buffers of the previous seed)";
    detail["disposition"] = disp;
    // The hold log (MSKB_GPU_LOCK_LOG): what this check held the GPU for.
    if (gpu.logged())
      gpu.label("check " + c.shape.str() + " seed " + std::to_string(seed) + (uses_gpu_instance(spec_, req_, c.shape) ? " gpu_instance" : held_->shared ? " host shared" : " host") +
                " generate_ms=" + ms(held_->generate_s) + " reference_ms=" + ms(held_->reference_s) +
                " reference_upload_ms=" + ms(std::chrono::duration<double>(t_check - t_reference).count()) + " check_ms=" + ms(seconds_since(t_check)));
    // generate and reference: the host work of this instance, wherever it ran (most of it ahead,
    // while the previous instance was checked or timed); waited: what of it this check waited for.
    return {{"generate", held_->generate_s},
            {"reference", held_->reference_s},
            {"waited", waited_s + std::chrono::duration<double>(t_check - t_reference).count()},
            {"check", seconds_since(t_check)}};
  }

  void time(const CheckItem& c, uint64_t seed) {
    // Alone on the GPU (as far as the harness goes) from the warm-up to the last sample's check.
    // The watchdog's clock starts once the lock is held: waiting for it is not the kernel's time.
    GpuLock::Guard gpu = wait_for_gpu(true, c.shape, seed, 0);
    rep_.phase("timing", c.shape, seed, spec_.call_timeout_s * 20 + req_.timing.max_time_s * 4);
    const auto t_timing = Clock::now();
    const std::vector<uint64_t> others_before = sharing_ ? sharing_->others_now() : std::vector<uint64_t>{};
    double nvml_s = seconds_since(t_timing);
    // Samples whose outputs are verified besides the last, drawn here and told to the candidate
    // only when the timing starts: one among the first three, one among the next seven.
    std::random_device rd;
    std::vector<int> verify_at;
    if (req_.verify_after_timing) verify_at = {static_cast<int>(rd() % 3), 3 + static_cast<int>(rd() % 7)};
    cand_.send({{"op", "time"}, {"config", req_.timing}, {"verify_at", verify_at}});
    std::string after = "passed";
    json after_detail;
    std::vector<int> verified;
    double verify_s = 0;
    Message m;
    while (true) {
      m = cand_.reply();
      if (!m.body.contains("snapshot")) break;
      const auto v0 = Clock::now();
      const int i = m.body.value("snapshot", -1);
      const bool asked = std::find(verify_at.begin(), verify_at.end(), i) != verify_at.end() &&
                         std::find(verified.begin(), verified.end(), i) == verified.end();
      json d;
      const std::string disp = asked ? judge_outputs(c, d, true) : std::string("harness_error");
      if (!asked) d["message"] = "the kernel's process sent an output snapshot nobody asked for";
      verified.push_back(i);
      if (disp != "passed" && after == "passed") {
        after = disp;
        after_detail = d;
        after_detail["message"] = "timed sample " + std::to_string(i) + ": " + d.value("message", std::string());
      }
      verify_s += seconds_since(v0);
      cand_.send({{"op", after == "passed" ? "continue" : "stop"}});
    }
    const double observed_us = (seconds_since(t_timing) - verify_s) * 1e6;
    const std::vector<double> samples = m.body.value("samples", std::vector<double>{});
    const std::vector<double> walls = m.body.value("walls", std::vector<double>{});
    const std::vector<double> gaps = m.body.value("gaps", std::vector<double>{});
    // The statistics are computed here from the raw samples, not taken from the candidate.
    TimingStats t = summarize_samples(samples);
    if (!gaps.empty()) {
      t.wall_gap_max_us = *std::max_element(gaps.begin(), gaps.end());
      t.wall_gap_p90_us = p90_lower(gaps);
    }
    if (!walls.empty()) {
      std::vector<double> w = walls;
      std::sort(w.begin(), w.end());
      t.wall_median_us = w[w.size() / 2];
    }
    t.sm_clock_mhz = m.body.value("sm_clock_mhz", 0.0);
    const auto t_after = Clock::now();
    if (sharing_ && sharing_->known()) {
      std::vector<uint64_t> seen = others_before, after_list = sharing_->others_now();
      nvml_s += seconds_since(t_after);
      seen.insert(seen.end(), after_list.begin(), after_list.end());
      t.gpu_other_pids = others(std::move(seen), {});  // sorted union of both lists
      t.gpu_others = static_cast<int>(t.gpu_other_pids.size());
    }
    if (const std::string why = timing_inconsistency(samples, walls, gaps, observed_us); !why.empty() && after == "passed") {
      after = "harness_error";
      after_detail = {{"message", "timing report rejected: " + why}};
    }
    const auto t_judge = Clock::now();
    if (after == "passed" && req_.verify_after_timing) {
      json d;
      const std::string disp = judge_outputs(c, d);
      if (disp != "passed") {
        after = disp;
        after_detail = d;
        after_detail["message"] = "last timed sample: " + d.value("message", std::string());
      }
    }
    // The hold log (MSKB_GPU_LOCK_LOG): where this timing's exclusive hold went.
    if (gpu.logged())
      gpu.label("timing " + c.shape.str() + " seed " + std::to_string(seed) + " warmup_ms=" + ms(m.body.value("warmup_s", 0.0)) +
                " sampling_ms=" + ms(m.body.value("sampling_s", 0.0)) + " verify_ms=" + ms(verify_s) + " nvml_ms=" + ms(nvml_s) +
                " judge_ms=" + ms(seconds_since(t_judge)) + " reply_ms=" + ms(std::chrono::duration<double>(t_after - t_timing).count()));
    rep_.emit({{"event", "timing"}, {"shape", c.shape}, {"shape_str", c.shape.str()}, {"sweep", c.sweep}, {"seed", seed},
               {"time_us", t}, {"after_timing", after}, {"after_detail", after_detail}, {"verified_samples", verified},
               {"seconds", seconds_since(t_timing)}});
  }

  const RunRequest& req_;
  const Reporter& rep_;
  const TaskSpec& spec_;
  GpuLock gpu_lock_;
  CandidateProcess cand_;
  KernelReference kref_;  // a task file's reference kernel (inactive without one)
  std::unique_ptr<GpuSharing> sharing_;
  std::unique_ptr<SparseMatrix> matrix_;
  std::unique_ptr<InstanceQueue> queue_;  // after matrix_: it reads it
  std::unique_ptr<HeldInstance> held_;
  IpcMapping device_out_;        // the candidate's device output region of held_, when on our GPU
  DeviceMemory staging_;         // a copy of held_'s inputs the candidate maps (RunRequest::device_inputs)
  struct Sent {
    const CheckItem* item = nullptr;
    uint64_t seed = 0;
  } sent_;                       // the instance last sent to the candidate
  std::string ipc_unavailable_;  // why CUDA IPC failed, once it has
};

}  // namespace

int run_child(const RunRequest& req, int report_fd) {
  Reporter rep(report_fd, req.token);
  try {
    if (req.mode == RunMode::device) {
      rep.emit(measure_device());
    } else if (req.mode == RunMode::profile) {
      rep.emit(run_profile(req, [&](const json& j) { rep.emit(j); }));
    } else if (req.mode == RunMode::identify) {
      rep.emit(identify_device());
    } else {
      // Nothing may attach to this process or read its memory (the reference, the token).
      ::prctl(PR_SET_DUMPABLE, 0);
      Verifier v(req, rep, report_fd);
      v.run();
      v.finish();
    }
    rep.emit({{"event", "done"}});
    return 0;
  } catch (const CandidateFatal& f) {
    rep.emit({{"event", "fatal"}, {"disposition", f.disposition}, {"message", f.what()}});
  } catch (const CudaError& e) {
    rep.emit({{"event", "fatal"}, {"disposition", disposition_for(e.code())}, {"message", e.what()}});
  } catch (const std::exception& e) {
    rep.emit({{"event", "fatal"}, {"disposition", "harness_error"}, {"message", e.what()}});
  }
  return 3;
}

}  // namespace mskb::gpu
