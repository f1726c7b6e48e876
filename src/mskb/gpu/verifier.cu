#include "mskb/gpu/verifier.cuh"

#include <cuda_runtime.h>

#include <cstdio>
#include <string>
#include <utility>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/stopwatch.cuh"
#include "mskb/util/channel.hpp"
#include "mskb/util/parallel.hpp"

namespace mskb::gpu {

using json = nlohmann::json;

void Verifier::run() {
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
              {"symbol", req_.symbol.empty() ? spec_.symbol(req_.precision) : req_.symbol}, {"identify", identify && !req_.load_before_lock},
              {"device_time", identify && req_.timing.device_samples > 0}});
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
  rep_.emit(SandboxEvent{cand_.reply().body.value("sandbox", std::string("none"))});  // issue 40: in every report
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
      const CheckEvent checked = check(c, seed, k > 0);
      rep_.emit(checked);
      if (checked.disposition != Disposition::passed) {
        if (++failures >= 3) return;
        break;
      }
      if (!timed || k + 1 != c.seeds.size() || failures > 0) continue;
      time(c, seed);
    }
  }
}

void Verifier::finish() {
  GpuLock::Guard gpu = wait_for_gpu(false, Shape{}, 0, 0);
  rep_.phase("exit", Shape{}, 0, 120);
  const auto t0 = Clock::now();
  cand_.send({{"op", "exit"}});
  cand_.wait_exit();
  const double kernel_exit_s = seconds_since(t0);
  if (const auto u = cand_.usage()) {
    char line[200];
    std::snprintf(line, sizeof line, "wall %.2f s, user %.2f s, system %.2f s, context switches %ld voluntary + %ld involuntary",
                  u->wall_s, u->user_s, u->system_s, u->voluntary_switches, u->involuntary_switches);
    rep_.emit(NoteEvent{"candidate_usage", line});
  }
  device_out_ = IpcMapping();
  staging_ = DeviceMemory();
  held_.reset();
  if (gpu.logged()) gpu.label("exit kernel_exit_ms=" + ms(kernel_exit_s) + " free_ms=" + ms(seconds_since(t0) - kernel_exit_s));
}

GpuLock::Guard Verifier::wait_for_gpu(bool exclusive, const Shape& shape, uint64_t seed, double resume_timeout_s) {
  if (!gpu_lock_.enabled()) return {};
  rep_.phase("gpu_wait", shape, seed, 3600);
  GpuLock::Guard g = exclusive ? gpu_lock_.exclusive() : gpu_lock_.shared();
  if (resume_timeout_s > 0) rep_.phase("generate", shape, seed, resume_timeout_s);
  return g;
}

void Verifier::inputs_to_host() {
  if (!held_->gpu || held_->inputs_on_host) return;
  held_->gpu->download_inputs(held_->layout, held_->input.data());
  held_->input.seal();
  held_->inputs_on_host = true;
}

void Verifier::send_instance(const CheckItem& c, uint64_t seed, bool reuse) {
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

void Verifier::load_instance(const CheckItem& c, uint64_t seed, bool reuse) {
  device_out_ = IpcMapping();  // closed before the candidate may free the region
  held_ = queue_->take(c, seed, std::move(held_));
  sent_ = {&c, seed};
  send_instance(c, seed, reuse);
}

void Verifier::ipc_failed(const std::string& why) {
  if (!ipc_unavailable_.empty()) return;
  ipc_unavailable_ = why.empty() ? "CUDA IPC unavailable" : why;
  // What it costs (every later comparison and upload through the host) goes into the report.
  rep_.emit(NoteEvent{"ipc", "GPU comparisons and device inputs went through the host from here on: " + ipc_unavailable_});
}

void Verifier::instance_uploaded() {
  Message up = cand_.reply();
  if (up.body.contains("device_inputs_failed")) {
    ipc_failed(up.body.value("device_inputs_failed", std::string("CUDA IPC unavailable")));
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
    ipc_failed(e.what());
    inputs_to_host();  // the host comparison of read-only inputs needs them there
    cand_.send({{"op", "host_outputs"}});
    cand_.reply();
  }
}

}  // namespace mskb::gpu
