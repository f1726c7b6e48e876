// Owns the optimization loop of one job (one task in one precision) and of a whole run.
//
// A job first builds and measures the task's baseline and vendor kernels, then runs up to R
// rounds. Each round profiles the current best, asks the Planner for a plan (unless
// --no-planner), asks the Coder for a kernel file, and then loops: parse -> integrity screen ->
// build -> evaluate. Whatever fails goes to the Debug agent (or, for toolchain failures, the
// Compiler agent), up to D fix attempts per round. A correct candidate replaces the best only if
// its P beats the best by more than the measured noise (score.hpp), and then only after it
// passes compute-sanitizer memcheck and racecheck (LoopConfig::sanitize) and a re-measurement in a
// fresh process beside the baseline still beats the best (that P is the one accepted). The job stops early on the
// run's budget, its wall-clock limit, K rounds without gain, or an interrupt.
//
// Every step (LLM call, candidate, build, evaluation, profile, round) is recorded in the run
// store as it completes. A resumed job re-walks its steps: recorded ones return their stored
// results (nothing is sent, built or measured again), the first missing one is where live work
// resumes. Decisions that depend on the clock or the budget are taken only in live steps.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudamaster/agents/agents.hpp"
#include "cudamaster/exec/executor.hpp"
#include "cudamaster/loop/backends.hpp"
#include "cudamaster/loop/gateway.hpp"
#include "cudamaster/store/store.hpp"

namespace cudamaster::loop {

struct LoopConfig {
  int rounds = 5;                    // R
  int debug_loops = 3;               // D: fix attempts (Debug or Compiler) per round
  int patience = 3;                  // K: stop after this many rounds without gain (0: never)
  profile::RenderMode profile = profile::RenderMode::filtered;
  bool planner = true;               // false: --no-planner (the Coder alone)
  double min_gain = 0;               // acceptance margin floor (score.hpp; the spread model sets the margin)
  bool allow_libraries = false;
  // The acceptance gate: a candidate becomes the best only after compute-sanitizer memcheck and
  // racecheck pass on it (kSanitizerShapes). false: --no-sanitize (weaker: memory errors that
  // restore the guard pattern, and shared-memory races, go unseen).
  bool sanitize = true;
  agents::BuildRecipe recipe{"", {}, false};               // "" arch: the harness's default
  std::vector<std::string> allowed_archs = {"90", "90a"};  // what the Compiler agent may choose
  std::optional<double> max_minutes;                       // wall clock over all sessions
  std::optional<double> budget_usd;                        // run-wide LLM budget
  agents::AgentSettings planner_settings{4096, std::nullopt, std::nullopt};
  agents::AgentSettings coder_settings{16384, std::nullopt, std::nullopt};
  agents::AgentSettings debug_settings{16384, std::nullopt, std::nullopt};
  agents::AgentSettings compiler_settings{2048, std::nullopt, std::nullopt};
  // A dry run (--dry-run): the agents and the compiler without a GPU. Each candidate is screened
  // and compiled (compile errors go to the Debug or Compiler agent as usual) but never evaluated
  // or profiled: the Planner is told there is no profile ("dry run: no profile"), a compiled
  // candidate ends its round, nothing has a P, and the run, its jobs and its summary say "dry".
  bool dry_run = false;
  // Users' task files (absolute paths, mskb/core/task_file.hpp): registered before the tasks are
  // looked up, on a new run and on every resume (they are part of the run's identity).
  std::vector<std::string> task_files;

  nlohmann::json to_json() const;
  static LoopConfig from_json(const nlohmann::json& j);
};

// What a job runs against. Everything is owned by the caller and outlives the job.
struct Services {
  store::RunStore* store = nullptr;
  LlmGateway* llm = nullptr;
  agents::PromptLibrary* prompts = nullptr;
  KernelBuilder* builder = nullptr;
  CandidateEvaluator* evaluator = nullptr;
  ProfileProvider* profiler = nullptr;  // may be null (then profiles are skipped)
  exec::GpuLanes* gpu = nullptr;
};

struct JobEnv {
  std::int64_t run_id = 0;
  std::string work_dir;  // candidate files: <work_dir>/<task>_<precision>/<seq>.cu
  std::string out_dir;   // best kernels: <out_dir>/<task>_<precision>.cu (+ .json)
  std::string gpu_name;  // the GPU's model as the device probe named it ("": unknown): the agents' brief, the margin's model
  std::optional<std::chrono::steady_clock::time_point> deadline;
  const std::atomic<bool>* interrupted = nullptr;
  std::function<void(const std::string&)> progress;  // one or more lines for stderr
  std::function<void()> heartbeat;                   // after every round (active time)
  // Where the job is, for a live progress line: stage 0 its references (baseline, vendor), then
  // each round r, rounds + 1 when it is over (RunProgress::stage).
  std::function<void(const store::JobInfo& job, int stage)> stage;
};

struct JobResult {
  store::Status status = store::Status::finished;  // finished | stopped | failed
  std::string stop_reason;  // rounds | patience | budget | wall_clock | interrupted | llm_error | ...
  nlohmann::json result;
};

JobResult run_job(const Services& services, const LoopConfig& config, const JobEnv& env, const store::JobInfo& job);

// ---- a whole run

struct OptimizeRequest {
  std::vector<std::string> tasks;
  std::vector<mskb::Precision> precisions = {mskb::Precision::fp32};
  LoopConfig config;
  std::string llm;                            // PROVIDER:MODEL
  std::optional<std::string> record_path;     // cassette of the live calls
  std::optional<std::string> pricing_path;
  llm::ProviderOptions provider;
  std::string db_path = "cudamaster.db";
  std::string out_dir;                        // "" = cudamaster-out/run-<id>
  int jobs = 1;                               // concurrent conversations
  // GPU lanes: the CUDA_VISIBLE_DEVICES value of each (mskb::gpu_lanes); empty = one lane on the
  // process's GPU. A job keeps to one lane; a lane runs one evaluation or profile at a time.
  // Local executor only.
  std::vector<std::string> gpus;
  // Where GPU work runs (exec::Executor). Unset: local for a new run, the recorded one for a resume.
  std::optional<exec::Executor> executor;
  std::optional<std::int64_t> resume;         // continue this run (its recorded config wins)
  std::string prompts_dir;                    // "" = agents::default_prompts_dir()
  nlohmann::json device;                      // device info (name, ceilings), recorded with the run
};

struct OptimizeResult {
  std::int64_t run_id = 0;
  store::Status status = store::Status::finished;  // finished | stopped | failed
  nlohmann::json summary;
  // exchange: the jobs that stopped to wait for a reply, each {task, precision, request, agent,
  // round, attempt, step}; all_waiting when every job not done waits (stopped for nothing else).
  std::vector<nlohmann::json> waiting;
  bool all_waiting = false;
};

// The jobs of a run that wait for an exchange reply (as OptimizeResult::waiting), and whether every
// job not finished or failed is one of them.
std::vector<nlohmann::json> waiting_jobs(const std::vector<store::JobInfo>& jobs, bool* all_waiting = nullptr);

// Backends a run uses; null members get the real implementations (MskbBuilder, MskbEvaluator,
// cm_profile). `gateway` lets tests inject an LLM client (else built from request.llm).
struct Backends {
  KernelBuilder* builder = nullptr;
  CandidateEvaluator* evaluator = nullptr;
  ProfileProvider* profiler = nullptr;
  LlmGateway* gateway = nullptr;
};

// What a live progress line is told besides the progress lines (cudamaster optimize on a
// terminal, mskb/util/progress.hpp): the jobs this session runs and the rounds each has, then
// each job's stage as it reaches it (JobEnv::stage). A job's units of work are its stages 0 (the
// references) to `rounds`; one stopped early skips the rest.
struct RunProgress {
  std::function<void(std::size_t jobs, int rounds)> jobs;
  std::function<void(const store::JobInfo& job, int stage)> stage;
};

// Throws std::runtime_error (one-line message) for setup problems: unknown task, unusable
// database, a run to resume that does not exist or is still running, LLM setup errors.
OptimizeResult run_optimize(const OptimizeRequest& request, const Backends& backends,
                            const std::function<void(const std::string&)>& progress,
                            const std::atomic<bool>* interrupted = nullptr, const RunProgress& stages = {});

}  // namespace cudamaster::loop
