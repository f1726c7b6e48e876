// Owns the request half of the contract between the parent (mskb, host-only) and the child runner
// process (mskb-runner, CUDA): the request the parent writes and the runner reads. The events the
// runner streams back are events.hpp's. The child measures; the parent judges (dispositions, scores).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/core/task.hpp"
#include "mskb/protocol/vocabulary.hpp"

namespace mskb {

struct TimingConfig {
  int warmup_calls = 3;        // at least this many untimed calls
  double warmup_s = 0.01;      // and at least this long (clocks settle after host-side work; 0.1, 0.02 and 0.01 s
                               // measured the same times on the H200: docs/harness.md section 5)
  int min_samples = 10;
  int max_samples = 2000;
  double min_time_s = 0.02;    // sampling time (wall clock) before the noise criterion may stop
  double max_time_s = 0.25;    // budget per shape (the noise criterion usually stops earlier)
  double target_noise = 0.01;  // relative standard error of the mean (the reported median is steadier; runs on
                               // the H200 differ by more than this shape by shape: docs/harness.md section 5)
  bool flush_l2 = true;
  // Extra calls per timed shape, after the samples, whose device time (CUPTI activity records:
  // mskb/protocol/device_time.hpp) is measured beside their call time; fewer when the shape's
  // sampling was short (they cost at most about a tenth of it, one call at least). 0: none
  // (MSKB_DEVICE_TIME=off).
  int device_samples = 5;
};

struct CheckItem {
  Shape shape;
  Sweep sweep = Sweep::paper;
  std::vector<uint64_t> seeds;
};

struct TimeItem {
  Shape shape;
  Sweep sweep = Sweep::paper;
  uint64_t seed = 1;
};

struct RunRequest {
  RunMode mode = RunMode::evaluate;  // profile: one call, for ncu
  // Random per evaluation, chosen by the parent: every event the runner reports carries it, and
  // a line without it is not the runner's (the parent rejects the evaluation).
  std::string token;
  std::string task;
  Precision precision = Precision::fp32;
  std::string library;  // the built .so
  std::string symbol;
  std::vector<CheckItem> checks;
  std::vector<TimeItem> timings;
  TimingConfig timing;
  bool verify_after_timing = true;        // re-check the output of the last timed call
  double gpu_reference_min_complexity = 1e8;  // use a task's GPU FP64 reference above this
  // At or above this complexity, a task with uniform inputs and a device reference has its
  // instances drawn, referenced and compared on the verifier's GPU (mskb/gpu/gpu_instance.cuh).
  double gpu_instance_min_complexity = 4194304;
  // At or above this complexity (negative: never), an instance made on the host is still compared
  // on the verifier's GPU: its inputs and expected outputs are uploaded once, the candidate's
  // outputs never cross to the host (on one H200, the spmm tasks' checks 144 -> 34 s).
  double gpu_compare_min_complexity = 4194304;
  // An instance drawn on the verifier's GPU reaches the candidate device to device: the verifier
  // exports a staging copy of its typed inputs through CUDA IPC and the candidate copies them into
  // its buffers, instead of both copying through the host input region (the default; where CUDA
  // IPC fails, the host region). Off: through the host.
  bool device_inputs = true;
  std::size_t guard_bytes = 64 * 1024;        // poisoned guard zones around every buffer (0: off)
  std::string matrix_path;                    // a user's Matrix Market file (sparse tasks)
  std::string task_file;                      // a user's task file (absolute; empty: a built-in task)
  // The task file's reference kernel, built (.so; mskb/harness/reference_kernel.hpp): the verifier
  // runs it in a process of its own for the expected outputs (mskb/gpu/kernel_reference.cuh).
  // Empty: the task's FP64 reference.
  std::string reference_library;
  // The GPU lane's lock file (mskb/util/gpu_lock.hpp), shared by every evaluation on that GPU:
  // held shared around GPU work, exclusive around a timing. Empty: no lock.
  std::string gpu_lock;
  // Where the lock's holds are logged (GpuLock's hold log; empty: nowhere): MSKB_GPU_LOCK_LOG.
  std::string gpu_lock_log;
  // The kernel library is loaded (dlopen, no CUDA context yet) before the lock is taken for the
  // contexts: for kernels shipped with their task only (an untrusted library's constructors would
  // run beside another's timing). The suite sets it for shipped kernels unless MSKB_LOAD_OUTSIDE_LOCK=0.
  bool load_before_lock = false;
  // The most host worker threads the verifier's host work may use (0: all CPUs but two).
  int host_threads = 0;
  // The folder where the verifiers of one (task, precision) group share the instances they
  // prepare on the host (mskb/core/instance_share.hpp), and how many of them will each take every
  // instance (the group's timing parts). Empty, or fewer than 2: each prepares its own.
  std::string instance_share_dir;
  int instance_share_consumers = 0;
};

// The task a request names: the built-in `task`, or the task of `task_file` (mskb/core/task_file.hpp),
// read once per process. The runner's processes resolve their request with it.
const TaskSpec& request_task(const RunRequest& r);

void to_json(nlohmann::json& j, const Shape& s);
void from_json(const nlohmann::json& j, Shape& s);
void to_json(nlohmann::json& j, const TimingConfig& c);
void from_json(const nlohmann::json& j, TimingConfig& c);
void to_json(nlohmann::json& j, const RunRequest& r);
void from_json(const nlohmann::json& j, RunRequest& r);

// Whether the shape of `c` is timed too (a timing item of the same shape and sweep).
bool is_timed(const RunRequest& r, const CheckItem& c);

}  // namespace mskb
