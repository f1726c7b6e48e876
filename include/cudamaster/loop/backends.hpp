// Owns the loop's three boundaries to the outside world, each an interface with the real
// implementation next to it (tests substitute fakes):
//   KernelBuilder       a kernel file -> a shared object (mskb's nvcc recipe and cache)
//   CandidateEvaluator  a built kernel -> the harness's verdict and timings; the real one runs
//                       mskb-runner in a child process, so candidate code is never loaded into
//                       the process that holds the run's state
//   ProfileProvider     a kernel -> bottleneck class + the metrics text for the Planner
//                       (cm_profile: Nsight Compute, or the speed-of-light fallback)
// Plus the JSON forms of their results, which the run store keeps and a resumed run reads back.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cudamaster/agents/agents.hpp"
#include "cudamaster/profile/filter.hpp"
#include "mskb/harness/compiler.hpp"
#include "mskb/harness/evaluator.hpp"
#include "mskb/harness/sanitizer.hpp"
#include "mskb/core/task.hpp"

namespace cudamaster::loop {

// ---- building

struct BuildRequest {
  std::string path;             // the kernel file
  agents::BuildRecipe recipe;
  bool allow_libraries = false;  // honour `// mskb-link:` (always for the task's own vendor file)
  bool binary_policy = true;     // mskb's binary policy on the built object (off only for the vendor file)
};

class KernelBuilder {
 public:
  virtual ~KernelBuilder() = default;
  virtual mskb::CompileResult build(const BuildRequest& request) = 0;
};

// mskb::compile_kernel (content-hash cache under cache_dir, "" = mskb's default).
class MskbBuilder final : public KernelBuilder {
 public:
  explicit MskbBuilder(std::string cache_dir = "") : cache_dir_(std::move(cache_dir)) {}
  mskb::CompileResult build(const BuildRequest& request) override;

 private:
  std::string cache_dir_;
};

// Whether a failed build looks like a toolchain problem (architecture-specific instructions,
// ptxas / nvlink / nvcc fatal errors) that the Compiler agent may fix with a different recipe,
// rather than a mistake in the code (the Debug agent's job).
bool toolchain_failure(const mskb::CompileResult& r);

nlohmann::json to_json(const mskb::CompileResult& r);
mskb::CompileResult compile_result_from_json(const nlohmann::json& j);

// ---- evaluating

// What an evaluation does (EvalRequest::mode):
//   full       correctness on the paper + held-out shapes, then timing on the paper sweep
//   memcheck   compute-sanitizer memcheck around the runner, correctness only, on kSanitizerShapes
//   racecheck  the same under racecheck (shared-memory hazards)
//   remeasure  the timing part of the paper sweep (each timed shape checked with its timed seed,
//              then timed) in a fresh runner process: the acceptance re-measurement
inline constexpr const char* kEvalFull = "full";
inline constexpr const char* kEvalMemcheck = "memcheck";
inline constexpr const char* kEvalRacecheck = "racecheck";
inline constexpr const char* kEvalRemeasure = "remeasure";

// The sanitizer gate's shapes (instrumented kernels run 10-100x slower, so not the whole sweep):
// mskb's sanitizer_subset (mskb/suite.hpp), the same as `mskb run --sanitize`; kSanitizerShapes
// says which in messages and the run store.
using mskb::kSanitizerShapes;
using mskb::sanitizer_subset;

struct EvalRequest {
  const mskb::TaskSpec* spec = nullptr;
  mskb::Precision precision = mskb::Precision::fp32;
  std::string contender;  // baseline | vendor | candidate
  std::string kernel;     // the kernel file (for messages)
  std::string library;    // the built shared object
  std::string gpu;        // CUDA_VISIBLE_DEVICES of the GPU lane it runs on; empty: inherited
  std::string mode = kEvalFull;  // full | memcheck | racecheck | remeasure (above)
};

class CandidateEvaluator {
 public:
  virtual ~CandidateEvaluator() = default;
  virtual mskb::ContenderResult evaluate(const EvalRequest& request) = 0;
};

// mskb::evaluate in a child mskb-runner process (MSKB_RUNNER or next to this executable):
// `full` as `mskb run` judges a contender; memcheck/racecheck wrap the runner in `sanitizer`
// (mskb::sanitizer_wrapper; a harness_error when it is empty); remeasure is the timing part.
class MskbEvaluator final : public CandidateEvaluator {
 public:
  explicit MskbEvaluator(mskb::EvalOptions options, std::string sanitizer = "")
      : options_(std::move(options)), sanitizer_(std::move(sanitizer)) {}
  mskb::ContenderResult evaluate(const EvalRequest& request) override;

 private:
  mskb::EvalOptions options_;
  std::string sanitizer_;
};

nlohmann::json to_json(const mskb::ContenderResult& r);
// `spec` restores each shape's complexity when the JSON lacks it.
mskb::ContenderResult contender_result_from_json(const nlohmann::json& j);

// ---- profiling

struct ProfileRequest {
  const mskb::TaskSpec* spec = nullptr;
  mskb::Precision precision = mskb::Precision::fp32;
  std::string kernel;            // the kernel file
  bool trusted = false;          // the task's own file (may link vendor libraries)
  bool allow_libraries = false;
  profile::RenderMode mode = profile::RenderMode::filtered;  // filtered | full
  std::string gpu;               // CUDA_VISIBLE_DEVICES of the GPU lane; empty: inherited
};

struct ProfileSummary {
  bool ok = false;
  std::string cls;         // compute | memory-bandwidth | memory-latency
  double confidence = 0;
  std::string source;      // ncu | sol_model
  std::string rendered;    // the text the Planner sees
  std::string message;     // why it failed, or what the fallback means
  nlohmann::json data;     // the profiler's own JSON (`cudamaster profile --json`)
};

class ProfileProvider {
 public:
  virtual ~ProfileProvider() = default;
  virtual ProfileSummary profile(const ProfileRequest& request) = 0;
};

// cm_profile::profile_task (ncu, or the speed-of-light fallback without counters), its GPU
// processes started through `launcher` (here, or Slurm job steps).
std::unique_ptr<ProfileProvider> make_cm_profile_provider(std::string runner = "", mskb::Launcher launcher = {});

nlohmann::json to_json(const ProfileSummary& s);
ProfileSummary profile_summary_from_json(const nlohmann::json& j);

}  // namespace cudamaster::loop
