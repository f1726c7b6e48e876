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
#include "mskb/compiler.hpp"
#include "mskb/evaluator.hpp"
#include "mskb/task.hpp"

namespace cudamaster::loop {

// ---- building

struct BuildRequest {
  std::string path;             // the kernel file
  agents::BuildRecipe recipe;
  bool allow_libraries = false;  // honour `// mskb-link:` (always for the task's own vendor file)
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

struct EvalRequest {
  const mskb::TaskSpec* spec = nullptr;
  mskb::Precision precision = mskb::Precision::fp32;
  std::string contender;  // baseline | vendor | candidate
  std::string kernel;     // the kernel file (for messages)
  std::string library;    // the built shared object
  std::string gpu;        // CUDA_VISIBLE_DEVICES of the GPU lane it runs on; empty: inherited
};

class CandidateEvaluator {
 public:
  virtual ~CandidateEvaluator() = default;
  virtual mskb::ContenderResult evaluate(const EvalRequest& request) = 0;
};

// mskb::evaluate: correctness on the paper + held-out shapes, timing on the paper sweep, in a
// child mskb-runner process (MSKB_RUNNER or next to this executable).
class MskbEvaluator final : public CandidateEvaluator {
 public:
  explicit MskbEvaluator(mskb::EvalOptions options) : options_(std::move(options)) {}
  mskb::ContenderResult evaluate(const EvalRequest& request) override;

 private:
  mskb::EvalOptions options_;
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
  std::string mode = "filtered"; // filtered | full
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
