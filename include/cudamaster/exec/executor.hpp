// Owns where the loop's work runs. GPU work (evaluations, profiles) takes a lane: one lane per
// GPU, so a GPU never runs two measurements at once (they would disturb each other's timing).
// LLM conversations and nvcc builds run in the job pool's threads, concurrently with the GPU.
//
// Two executors share that lane interface. local: this machine's GPUs, a lane per GPU (its
// CUDA_VISIBLE_DEVICES), a job keeps to its lane. slurm: every evaluation and profile is a Slurm
// job step with one GPU (`srun --gres=gpu:1`, mskb/launcher.hpp) while the loop - run state, the
// store, LLM calls, nvcc builds - stays where `cudamaster optimize` runs (a login node, a CPU
// allocation); the lanes carry no device (the step's GRES binding sets CUDA_VISIBLE_DEVICES on
// its node) and only bound how many steps run at once. Files the steps read (requests, kernel
// cache, runner, ncu) must be on a filesystem the compute nodes share.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "mskb/harness/lane_scheduler.hpp"
#include "mskb/harness/launcher.hpp"

namespace cudamaster::exec {

// Where a run's GPU work goes; recorded with the run (a resume reuses it unless told otherwise).
struct Executor {
  mskb::Launcher launcher;  // local, or slurm with its srun options and shared work root
  int jobs = 4;             // slurm: job steps at once (the lanes)
  nlohmann::json to_json() const;
  static Executor from_json(const nlohmann::json& j);  // a run recorded before executors: local
  std::string describe() const;                         // "local" | "slurm (srun ...; work dir ...), 4 job steps at once"
};

// The lanes and the worker pool are the suite's scheduler pieces (mskb/harness/lane_scheduler.hpp).
using GpuLanes = mskb::LaneLeases;
using mskb::run_pool;

}  // namespace cudamaster::exec
