// Owns the settings an evaluation takes from the environment: the MSKB_* variables docs/reference.md and
// docs/harness.md document for the evaluator and the suite, read in this one place, once, where a
// command starts (Settings::from_environment: mskb run / check / rerun, cudamaster's evaluator),
// and passed down with the evaluation options (EvalOptions::settings). Nothing below reads them.
#pragma once

#include <optional>
#include <string>

namespace mskb {

struct Settings {
  // MSKB_GPU_LOCK_LOG: every hold of a GPU lane's lock, one line each, to this file (or FILE.<lane>
  // on several GPUs: EvalOptions::gpu_lock_log_suffix). Empty: not logged.
  std::string gpu_lock_log;
  // MSKB_GPU_INSTANCE_MIN_COMPLEXITY, MSKB_GPU_COMPARE_MIN_COMPLEXITY: where instances live and are
  // compared, for validation (RunRequest's thresholds; EvalOptions' own win). Numbers >= 0.
  std::optional<double> gpu_instance_min_complexity;
  std::optional<double> gpu_compare_min_complexity;
  // MSKB_DEVICE_INPUTS: GPU instances' inputs device to device (RunRequest::device_inputs). 0 or 1.
  std::optional<bool> device_inputs;
  // MSKB_PIPELINE: a two-phase suite's timing parts start as soon as their group is checked
  // (default off). MSKB_LOAD_OUTSIDE_LOCK: shipped kernels' libraries load before the GPU lock
  // (default on). MSKB_SHARE_INSTANCES: a group's timing parts share their instances (default on).
  std::optional<bool> pipeline;
  std::optional<bool> load_outside_lock;
  std::optional<bool> share_instances;
  // MSKB_DEVICE_TIME: off leaves out the device-time calls after each timing
  // (TimingConfig::device_samples 0; to measure what they cost); on (the default) measures them.
  // "on"/"off" or 1/0.
  std::optional<bool> device_time;

  // The variables as set now (unset or empty: not set). Throws std::invalid_argument naming a
  // malformed one ("MSKB_DEVICE_INPUTS must be 0 or 1", "... must be a number >= 0",
  // "MSKB_DEVICE_TIME must be on or off").
  static Settings from_environment();
};

}  // namespace mskb
