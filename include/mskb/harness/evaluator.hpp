// Owns judging one contender (a built kernel library) for one task and precision: it writes
// the request, runs mskb-runner in a child process under a watchdog, reads the streamed events,
// and turns them into dispositions. Host-only; the policy functions are pure and unit-tested.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/harness/launcher.hpp"
#include "mskb/harness/settings.hpp"
#include "mskb/protocol/events.hpp"
#include "mskb/protocol/request.hpp"
#include "mskb/protocol/vocabulary.hpp"
#include "mskb/core/scoring.hpp"
#include "mskb/core/task.hpp"

namespace mskb {

struct TimingPolicy {
  // Impossible times (too_fast): a median below this fraction of the time the minimum DRAM
  // traffic needs at the measured bandwidth (L2 is flushed before every sample), or below
  // too_fast_flop_fraction of the time the task's FLOPs need at the device's fastest measured
  // arithmetic (the BF16 tensor peak, whatever the task's precision). The FLOP margin allows a
  // kernel tuned past cuBLAS's measured peak and an algorithm with fewer multiplications
  // (one Strassen level: 7/8), not a result replayed without the arithmetic.
  double too_fast_fraction = 0.5;
  double too_fast_flop_fraction = 0.7;
  // Past the cache: on a shape whose minimum DRAM traffic is at least replay_l2_multiple times the
  // L2 (write-back caching cannot hold it), a median faster than the DRAM time by more than
  // replay_dram_margin is too_fast. Calibrated on the H200 (docs/harness.md section 10): the
  // fastest honest shipped kernel past 4x the L2 reached 1.02x its DRAM time; a replay that
  // saves a third of the traffic reads 1.3-1.5x.
  double replay_dram_margin = 1.12;
  double replay_l2_multiple = 4.0;
  double unsynced_gap_us = 200;     // device still busy this long after the entry point returned
  double unsynced_gap_fraction = 0.25;
  double max_noise = 0.02;          // relative standard error above this at budget end: noisy
};
// dram_floor_us: the minimum DRAM traffic at the measured bandwidth; flop_floor_us: the FLOPs at
// the fastest measured peak (0: not judged). See TimingPolicy.
// beyond_cache: the shape's minimum traffic is at least p.replay_l2_multiple times the L2.
Disposition judge_timing(const TimingStats& t, double dram_floor_us, const TimingPolicy& p, double flop_floor_us = 0,
                         bool beyond_cache = false);
Disposition judge_check_gap(double gap_us, double call_us, const TimingPolicy& p);
// The FLOPs of `c` at the fastest measured peak of the device (BF16 tensor), in microseconds.
double flop_floor_us(const Cost& c, const Ceilings& ceilings);

// The runner's extra environment: `extra` plus glibc.malloc.hugetlb=1 in GLIBC_TUNABLES (merged
// with `inherited`, the caller's GLIBC_TUNABLES, or with one in `extra`): the large sweeps'
// multi-GB host buffers then fault in 2 MB transparent huge pages instead of 4 KB pages (the
// page faults, not the generators, dominated input generation on a VM: 2 GB took seconds).
std::vector<std::pair<std::string, std::string>> runner_environment(std::vector<std::pair<std::string, std::string>> extra,
                                                                    const char* inherited);

struct ShapeTiming {
  Sweep sweep = Sweep::paper;
  Shape shape;
  uint64_t complexity = 0;
  double roofline_us = 0;
  TimingStats time;
  Disposition disposition = Disposition::passed;
};

struct EvalOptions {
  std::vector<Sweep> timed_sweeps = {Sweep::paper};  // correctness always covers paper + heldout
  // Sweeps checked besides paper, heldout and the timed ones (mskb check --sweep large).
  std::vector<Sweep> checked_sweeps;
  // Random shapes drawn from the task's valid size space (random_shapes(spec, shape_seed, n)),
  // checked like held-out shapes (sweep "random"); 0 shapes: none.
  int random_shapes = 0;
  uint64_t shape_seed = 0;
  bool check_only = false;
  int seeds = 3;  // per paper/heldout/random shape; every shape gets at least 2 (the second runs in the first's buffers)
  TimingConfig timing;
  TimingPolicy policy;
  Ceilings ceilings;
  std::string runner;                       // empty: mskb-runner next to this executable
  std::string work_dir;                     // request and log files; empty: a temp dir
  double call_timeout_scale = 1.0;          // multiplies the task's per-call watchdog
  std::optional<double> call_timeout_s;     // overrides it
  std::vector<std::string> wrapper;         // e.g. compute-sanitizer --tool memcheck ... (guards off)
  std::string matrix_path;                  // check and time on this user matrix instead of the sweeps
  Shape matrix_shape;
  // Ad-hoc shapes (`mskb run|check --shape`, sweep "custom"): checked and timed instead of the sweeps.
  std::vector<Shape> custom_shapes;
  std::vector<std::pair<std::string, std::string>> env;  // extra runner environment (CUDA_VISIBLE_DEVICES of a lane)
  // Where the runner runs: here, or as a Slurm job step with one GPU (then the work dir is under
  // launcher.work_root and the wrapper runs inside the step).
  Launcher launcher;
  // Which part of a timed evaluation this process does: all (checks, then timing, one runner),
  // checks (the checks except the timed seed of each timed shape, no timing: may share a GPU), or
  // timing (the timed shapes with their timed seed, checked then timed: after a checks part of
  // the same build passed). Together the two parts run every check of all exactly once.
  Part part = Part::all;
  // The GPU lane's lock file (RunRequest::gpu_lock; empty: none) and the cap of the verifier's
  // host worker threads (RunRequest::host_threads; 0: all CPUs but two), for evaluations that
  // share a GPU and the host with others.
  std::string gpu_lock;
  int host_threads = 0;
  // With MSKB_GPU_LOCK_LOG=FILE, the lock's holds go to FILE, or to FILE.<this> where it is set
  // (a run on several GPUs: one log per lane, "gpu0", "gpu1", ...).
  std::string gpu_lock_log_suffix;
  // RunRequest::load_before_lock (the suite sets it for shipped kernels unless MSKB_LOAD_OUTSIDE_LOCK=0).
  bool load_before_lock = false;
  // RunRequest::instance_share_dir and instance_share_consumers: the suite sets them for the
  // timing parts of a group of shipped kernels (docs/harness.md section 9).
  std::string instance_share_dir;
  int instance_share_consumers = 0;
  // Added to the runner's nice value (SpawnOptions::nice): the checks of a pipelined run, which
  // fill the CPUs around other evaluations' timings.
  int nice = 0;
  // From this complexity an instance of a task that can (uniform inputs, device reference) lives on
  // the verifier's GPU (RunRequest::gpu_instance_min_complexity); unset: the request's default,
  // or the environment's MSKB_GPU_INSTANCE_MIN_COMPLEXITY (0: every instance, for validation).
  std::optional<double> gpu_instance_min_complexity;
  // From this complexity a host-made instance is compared on the verifier's GPU
  // (RunRequest::gpu_compare_min_complexity); unset: the environment's
  // MSKB_GPU_COMPARE_MIN_COMPLEXITY, else RunRequest's default (2^22).
  std::optional<double> gpu_compare_min_complexity;
  // GPU instances' inputs handed to the candidate device to device (RunRequest::device_inputs);
  // unset: the environment's MSKB_DEVICE_INPUTS (1 on, 0 off), else on.
  std::optional<bool> device_inputs;
  // The environment's settings (mskb/harness/settings.hpp), read where the command starts: the
  // evaluator and the suite take the MSKB_* variables from here, never from the environment.
  // Default: none set.
  Settings settings;
};

struct ContenderResult {
  std::string task, precision, contender, kernel;
  Disposition disposition = Disposition::not_run;
  std::string message;                 // one line, empty when passed
  nlohmann::json failure;              // the failing check's detail (shape, seed, mismatches)
  std::vector<ShapeTiming> timings;
  int checks_passed = 0, checks_total = 0;
  double seconds = 0;
  // Runner time by phase, summed over shapes and seeds: generate (inputs on the host and their
  // upload), reference (FP64), check (checked calls and comparison), timing (timed calls).
  std::map<std::string, double> phase_seconds;
  // A two-phase run's timed contender: the phases of its timing part alone (phase_seconds adds its
  // checks part's); empty otherwise. The timing part's checks of the timed seeds hold the GPU lock
  // shared beside the other parts' timings, so they are the timing phase's other GPU cost.
  std::map<std::string, double> timing_part_seconds;
  // The checked instance whose inputs took longest to make (its `generate` seconds, wherever the
  // work ran) and its shape; empty shape when no check reported it.
  std::string slowest_generate_shape;
  double slowest_generate_s = 0;
  // The compute-sanitizer tools that ran clean on it before its timing (`mskb run --sanitize`,
  // cudamaster's gate), on kSanitizerShapes; empty when no gate ran.
  std::vector<std::string> sanitized;
  // The OS sandbox the kernel's process ran in ("landlock-7+seccomp", "seccomp (landlock: ...)"),
  // as its process reported it (issue 40); empty when the runner got no further than the build.
  std::string sandbox;
  // How the evaluation ran where that changed its cost, not its verdict (the runner's note
  // events), e.g. "ipc": why GPU comparisons and device inputs went through the host.
  std::map<std::string, std::string> notes;
  std::string log_tail;
};

ContenderResult evaluate(const TaskSpec& spec, Precision p, const std::string& contender, const std::string& kernel,
                         const std::string& library, const EvalOptions& opt);
// The request evaluate() sends for (spec, p, library) under `opt` (its token left empty).
RunRequest evaluation_request(const TaskSpec& spec, Precision p, const std::string& library, const EvalOptions& opt);
// The request for one shape of (spec, p, library), seed 1 of the paper sweep: mode evaluate checks
// it and times it (cudamaster's profiler without counters), mode profile makes the one checked
// call a profiler watches.
RunRequest single_shape_request(const TaskSpec& spec, Precision p, const std::string& library, const Shape& shape, RunMode mode);

// A result as JSON and back, timings included (the run store; anything that crosses a process
// or machine boundary).
nlohmann::json result_to_json(const ContenderResult& r);
// {"shape", "seconds"} of r's slowest input generation, null when none was reported.
nlohmann::json slowest_generate_json(const ContenderResult& r);
// Folds `part`'s slowest generation into `into` (the two parts of a two-phase run).
void merge_slowest_generate(ContenderResult& into, const ContenderResult& part);
ContenderResult result_from_json(const nlohmann::json& j);

std::string runner_path(const std::string& override_path = "");
std::string make_work_dir(const std::string& hint);  // a temp dir (launch_work_dir of a local launcher)

// Runs the runner in identify or device mode (through `launcher`: a Slurm job step when the
// GPU is on a compute node). Throws std::runtime_error with a one-line message (e.g. no CUDA
// device, srun could not allocate) on failure.
nlohmann::json query_device(RunMode mode, const std::string& runner = "", const Launcher& launcher = {});
// The device's ceilings, measured once and cached per GPU UUID under the cache dir.
nlohmann::json device_info(bool refresh, const std::string& runner = "", const Launcher& launcher = {});
Ceilings ceilings_from(const nlohmann::json& device);

}  // namespace mskb
