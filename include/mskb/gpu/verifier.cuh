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
// verifier.cu: load, contexts, the run and the instances' hand-over; verifier_check.cu: one
// check and one timing.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "mskb/core/matrix_market.hpp"
#include "mskb/core/task.hpp"
#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/comparison.cuh"
#include "mskb/gpu/instance_queue.cuh"
#include "mskb/gpu/kernel_reference.cuh"
#include "mskb/gpu/runner_child.cuh"
#include "mskb/protocol/events.hpp"
#include "mskb/protocol/request.hpp"
#include "mskb/util/gpu_lock.hpp"
#include "mskb/util/gpu_sharing.hpp"

namespace mskb::gpu {

// A contender's evaluation as the verifier runs it: load, contexts, then every planned check and
// timing in the request's order, each reported as an event (a failed check ends its shape, three
// end the run); finish() lets the candidate go.
class Verifier {
 public:
  Verifier(const RunRequest& req, const EventWriter& rep, int report_fd)
      : req_(req),
        rep_(rep),
        spec_(request_task(req)),
        gpu_lock_(req.gpu_lock, req.gpu_lock_log),
        cand_(report_fd),
        kref_(req, spec_, report_fd) {}

  void run();

  // The candidate exits (its context goes) and this process's GPU memory is freed while the GPU
  // lock is held shared: a teardown is GPU work too.
  void finish();

 private:
  // The GPU lock (shared, or exclusive for a timing). Waiting for it is another evaluation's time,
  // not this kernel's: the watchdog gets a phase of its own, then the phase we were in again.
  GpuLock::Guard wait_for_gpu(bool exclusive, const Shape& shape, uint64_t seed, double resume_timeout_s);

  // Whether the outputs of (c's shape) are compared on our GPU: an instance drawn there, or a
  // host-made one from RunRequest::gpu_compare_min_complexity (while CUDA IPC works).
  bool compares_on_gpu(const Shape& shape) const {
    if (uses_gpu_instance(spec_, req_, shape)) return true;
    return req_.gpu_compare_min_complexity >= 0 && ipc_unavailable_.empty() && gpu_compare_possible(spec_) &&
           static_cast<double>(spec_.complexity(shape)) >= req_.gpu_compare_min_complexity;
  }

  // A GPU instance's inputs, not yet downloaded, into its input region, which is then sealed (the
  // candidate has not had its descriptor: nothing else can have mapped it writable).
  void inputs_to_host();

  // Sends the held instance to the candidate: its inputs from our staging copy on the GPU (a GPU
  // instance with RunRequest::device_inputs, while CUDA IPC works) or from the sealed input region.
  void send_instance(const CheckItem& c, uint64_t seed, bool reuse);

  // Takes the instance of (c, seed) from the queue and hands it to the candidate; `reuse`: into the
  // buffers of the previous seed of the same shape.
  void load_instance(const CheckItem& c, uint64_t seed, bool reuse);

  // The candidate's answer to an instance: for an instance on our GPU, the device output region
  // it exports, mapped here. Where CUDA IPC does not work, that instance and the rest of the
  // evaluation use the host region (the same checks, slower).
  // Where the candidate could not map our staging copy of the inputs, the instance goes again
  // through the host (and so does every later one: the IPC is not retried).
  void instance_uploaded();
  void ipc_failed(const std::string& why);  // once: ipc_unavailable_, and a note in the report

  Disposition judge_outputs(const CheckItem& c, nlohmann::json& detail, bool outputs_only = false) {
    return verify(spec_, req_.precision, held_->layout, held_->input.data(), held_->output.data(), held_->expected, held_->gpu.get(),
                  device_out_.get(), spec_.tolerance(c.shape, req_.precision), detail, outputs_only);
  }

  // One check: generate, hand over, reference (while the candidate uploads), the checked call,
  // then gap probes whose outputs are judged too.
  CheckEvent check(const CheckItem& c, uint64_t seed, bool reuse);

  // The timing of a shape whose checks passed (under the exclusive lock), its outputs verified
  // at samples drawn here and after the last; emits the timing event.
  void time(const CheckItem& c, uint64_t seed);

  const RunRequest& req_;
  const EventWriter& rep_;
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

}  // namespace mskb::gpu
