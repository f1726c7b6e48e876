// Owns `cudamaster profile` end to end: pick the kernel (the task's baseline by default), build
// it with the harness's nvcc recipe, run it once at a representative shape in mskb-runner's
// profile mode under ncu, parse and classify; and, when ncu cannot read counters, time the kernel
// with the harness instead and classify it with the speed-of-light model (source "sol_model").
// With a Slurm launcher the build stays here and every GPU process (ncu, the fallback's timed
// run, the device query) is a job step; the work dir is then under the launcher's shared root.
// Also the offline path: an exported CSV or .ncu-rep.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

#include "cudamaster/profile/ncu.hpp"
#include "cudamaster/profile/report.hpp"
#include "mskb/core/task.hpp"

namespace cudamaster::profile {

// A profile that could not be produced. exit_code 2: usage (unknown task, missing file, bad
// shape); 1: everything else (compile error, the kernel crashed, no device, unreadable export).
class ProfileFailure : public std::runtime_error {
 public:
  ProfileFailure(std::string kind, const std::string& message, int exit_code = 1)
      : std::runtime_error(message), kind_(std::move(kind)), exit_code_(exit_code) {}
  const std::string& kind() const noexcept { return kind_; }
  int exit_code() const noexcept { return exit_code_; }

 private:
  std::string kind_;
  int exit_code_;
};

struct TaskProfileOptions {
  std::string task;
  std::string kernel = "baseline";  // baseline | vendor | path to a kernel file
  mskb::Precision precision = mskb::Precision::fp32;
  std::string shape;                // "k=v,..." overriding dims of the default shape
  bool allow_libraries = false;     // for user kernels (the task's own files always may link)
  std::string runner;               // empty: $MSKB_RUNNER or mskb-runner next to this executable
  NcuOptions ncu;
  std::string report_dir;           // keep report, CSV, logs here; empty: a temp dir, removed after
  bool sol_fallback = true;         // classify from the SOL model when counters are unavailable
  double fallback_timeout_s = 600;
  std::string gpu;                  // CUDA_VISIBLE_DEVICES for ncu and the runner; empty: inherited
  mskb::Launcher launcher;          // local, or a Slurm job step with one GPU per GPU process
};

using Progress = std::function<void(const std::string&)>;

// The paper shape with the largest complexity (the last one on ties).
mskb::Shape default_profile_shape(const mskb::TaskSpec& spec);
// "N=4096,M=64": replaces those dims of `base`. Throws std::invalid_argument on a malformed list
// or a dimension the task does not have.
mskb::Shape apply_shape_override(const mskb::TaskSpec& spec, mskb::Shape base, const std::string& text);
// baseline / vendor / a path. `trusted` is set when the file belongs to the task's folder.
std::string resolve_kernel_file(const mskb::TaskSpec& spec, const std::string& kernel, mskb::Precision p, bool* trusted);

ProfileOutcome profile_task(const TaskProfileOptions& o, const Progress& progress = {});
// FILE.csv (pure CPU) or FILE.ncu-rep (runs `ncu --import`).
ProfileOutcome profile_import(const std::string& file, const NcuOptions& ncu = {});

}  // namespace cudamaster::profile
