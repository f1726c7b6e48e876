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

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

class GpuLanes {
 public:
  // `lanes` lanes that inherit the process's GPU (tests, a single GPU), or one lane per entry of
  // `devices`, each entry the CUDA_VISIBLE_DEVICES value its work runs under. Unpinned lanes
  // (Slurm job steps: the scheduler picks the GPU) serve acquire(affinity) with any free lane.
  explicit GpuLanes(int lanes = 1, bool pinned = true);
  explicit GpuLanes(std::vector<std::string> devices);

  // Holds one lane for its lifetime.
  class Lease {
   public:
    Lease(GpuLanes& owner, int lane) : owner_(&owner), lane_(lane) {}
    // The CUDA_VISIBLE_DEVICES value of this lane; empty: inherit the process's.
    std::string device() const { return owner_ ? owner_->device(lane_) : std::string(); }
    ~Lease();
    Lease(Lease&& o) noexcept : owner_(o.owner_), lane_(o.lane_) { o.owner_ = nullptr; }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease& operator=(Lease&&) = delete;
    int lane() const { return lane_; }

   private:
    GpuLanes* owner_;
    int lane_;
  };

  Lease acquire();              // blocks until a lane is free
  Lease acquire(int affinity);  // blocks until lane `affinity % lanes()` (unpinned: any lane) is free
  std::string device(int lane) const;
  int lanes() const { return static_cast<int>(busy_.size()); }
  int max_in_use() const;  // the most lanes ever held at once (tests check the limit)

 private:
  void release(int lane);
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<bool> busy_;
  std::vector<std::string> devices_;
  bool pinned_ = true;
  int in_use_ = 0, max_in_use_ = 0;
};

// Runs tasks[0..n) on `threads` worker threads (at least 1), each task once, and returns when
// all are done. Exceptions inside a task are the task's business (it must catch them).
void run_pool(std::size_t n, int threads, const std::function<void(std::size_t)>& task);

}  // namespace cudamaster::exec
