// Owns where a run's work goes on this host's GPUs: the lanes (one per GPU, its
// CUDA_VISIBLE_DEVICES value), how many evaluations run at once per lane, the host CPUs each gets,
// the lanes' lock files, and the scheduling of work units onto the lanes. Task-agnostic: a unit
// is a list of item indices, and the caller's callback does the work of one item on one lane.
// mskb run's local executor (run_suite) uses it; `--executor slurm` runs the same units as Slurm
// jobs instead (slurm_executor.hpp).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace mskb {

// The lanes of a run: for each requested GPU ordinal (empty = all `device_count`), the value a
// runner's CUDA_VISIBLE_DEVICES must hold, honouring a CUDA_VISIBLE_DEVICES the parent runs under.
std::vector<std::string> gpu_lanes(const std::vector<int>& requested, int device_count, const char* visible_env);

// `--checks-per-gpu auto`: half the CPUs and one check per 12 GB of host memory (a check part
// of the suite's largest shapes holds ~5 GB), shared by the lanes, from 1 to 8 per GPU.
int auto_checks_per_gpu(int cpus, double host_memory_gb, std::size_t lanes);
// `--timing-overlap auto`: 3 when every contender of the run is trusted (shipped with its task: no
// untrusted library keeps a context on the GPU beside another's timing, docs/harness.md section
// 9), else 1.
int auto_timing_overlap(bool all_trusted);
// This host's memory in GB (16 when it cannot be read).
double host_memory_gb();

// A lane's name as it goes into file names: its lock file, its hold log.
std::string lane_file_name(const std::string& lane);

// Runs tasks[0..n) on `threads` worker threads (at least 1; the calling thread is one of them),
// each task once, and returns when all are done. Exceptions inside a task are the task's
// business (it must catch them).
void run_pool(std::size_t n, int threads, const std::function<void(std::size_t)>& task);

// Lanes held one job at a time, for work that takes a lane when it needs one (cudamaster's jobs:
// an evaluation or a profile holds a lease while it runs) rather than being scheduled ahead.
class LaneLeases {
 public:
  // `lanes` lanes that inherit the process's GPU (tests, a single GPU), or one lane per entry of
  // `devices`, each entry the CUDA_VISIBLE_DEVICES value its work runs under. Unpinned lanes
  // (Slurm job steps: the scheduler picks the GPU) serve acquire(affinity) with any free lane.
  explicit LaneLeases(int lanes = 1, bool pinned = true);
  explicit LaneLeases(std::vector<std::string> devices);

  // Holds one lane for its lifetime.
  class Lease {
   public:
    Lease(LaneLeases& owner, int lane) : owner_(&owner), lane_(lane) {}
    // The CUDA_VISIBLE_DEVICES value of this lane; empty: inherit the process's.
    std::string device() const { return owner_ ? owner_->device(lane_) : std::string(); }
    ~Lease();
    Lease(Lease&& o) noexcept : owner_(o.owner_), lane_(o.lane_) { o.owner_ = nullptr; }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease& operator=(Lease&&) = delete;
    int lane() const { return lane_; }

   private:
    LaneLeases* owner_;
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

// Work units: each a list of item indices that run on one lane, in order.
using WorkUnits = std::vector<std::vector<std::size_t>>;
// One item's work on a lane (the lane's CUDA_VISIBLE_DEVICES value).
using LaneWork = std::function<void(std::size_t item, const std::string& lane)>;

class LaneScheduler {
 public:
  explicit LaneScheduler(std::vector<std::string> lanes) : lanes_(std::move(lanes)) {}
  const std::vector<std::string>& lanes() const { return lanes_; }

  // One lock file per lane, in this run's temp dir (mskb/util/gpu_lock.hpp: GPU work holds it
  // shared, a timing exclusive); lock_of(lane) is "" before, or for a lane without one.
  void make_locks();
  std::string lock_of(const std::string& lane) const;

  // The host threads of one thread pool when `pools_per_lane` pools run at once on every lane:
  // all CPUs but two, divided among them (at least 1).
  int cpu_share(int pools_per_lane) const;

  // Runs `units` on `per_lane` workers per lane. A lane takes the next unit when its workers
  // have nothing left to start, so a unit's items all run on that lane, in order, up to
  // `per_lane` of them (of one unit or several) at once. `stagger`: a unit's later items wait
  // while the lane has other work (the next unit's first item) until none of their unit's items
  // runs (the lane's last unit may still run its items side by side).
  void run(const WorkUnits& units, int per_lane, bool stagger, const LaneWork& work) const;

  // Two stages that overlap: `first` items on `first_per_lane` workers per lane in any order; a
  // unit of `second` becomes ready when every one of its items has ended its first stage, and a
  // lane's `second_per_lane` workers take the first ready unit whole (its second stage runs on
  // that lane), the next when they have nothing left of it. `on_taken(unit)` is called (under
  // the scheduler's lock) when a lane takes a unit, before any of its second stages starts.
  void run_two_stages(const WorkUnits& second, int first_per_lane, int second_per_lane, const LaneWork& first,
                      const std::function<void(std::size_t unit)>& on_taken, const LaneWork& second_work) const;

 private:
  std::vector<std::string> lanes_;
  std::map<std::string, std::string> locks_;  // lane -> its GPU lock file
};

}  // namespace mskb
