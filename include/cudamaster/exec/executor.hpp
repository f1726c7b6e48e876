// Owns where the loop's work runs. GPU work (evaluations, profiles) takes a lane: one lane per
// GPU, so a GPU never runs two measurements at once (they would disturb each other's timing).
// LLM conversations and nvcc builds run in the job pool's threads, concurrently with the GPU.
// A Slurm executor (one GPU job per evaluation) would implement the same lane interface.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace cudamaster::exec {

class GpuLanes {
 public:
  // `lanes` lanes that inherit the process's GPU (tests, a single GPU), or one lane per entry of
  // `devices`, each entry the CUDA_VISIBLE_DEVICES value its work runs under.
  explicit GpuLanes(int lanes = 1);
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
  Lease acquire(int affinity);  // blocks until lane `affinity % lanes()` is free
  std::string device(int lane) const;
  int lanes() const { return static_cast<int>(busy_.size()); }
  int max_in_use() const;  // the most lanes ever held at once (tests check the limit)

 private:
  void release(int lane);
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<bool> busy_;
  std::vector<std::string> devices_;
  int in_use_ = 0, max_in_use_ = 0;
};

// Runs tasks[0..n) on `threads` worker threads (at least 1), each task once, and returns when
// all are done. Exceptions inside a task are the task's business (it must catch them).
void run_pool(std::size_t n, int threads, const std::function<void(std::size_t)>& task);

}  // namespace cudamaster::exec
