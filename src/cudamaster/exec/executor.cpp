#include "cudamaster/exec/executor.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

namespace cudamaster::exec {

nlohmann::json Executor::to_json() const {
  nlohmann::json j = mskb::to_json(launcher);
  if (launcher.slurm()) j["jobs"] = jobs;
  return j;
}

Executor Executor::from_json(const nlohmann::json& j) {
  Executor e;
  e.launcher = mskb::launcher_from_json(j);
  if (j.is_object()) e.jobs = j.value("jobs", e.jobs);
  return e;
}

std::string Executor::describe() const {
  if (!launcher.slurm()) return mskb::describe(launcher);
  return mskb::describe(launcher) + ", " + std::to_string(jobs) + " job step" + (jobs == 1 ? "" : "s") + " at once";
}

GpuLanes::GpuLanes(int lanes, bool pinned) : busy_(static_cast<std::size_t>(std::max(1, lanes)), false), pinned_(pinned) {}

GpuLanes::GpuLanes(std::vector<std::string> devices)
    : busy_(std::max<std::size_t>(1, devices.size()), false), devices_(std::move(devices)) {}

std::string GpuLanes::device(int lane) const {
  return static_cast<std::size_t>(lane) < devices_.size() ? devices_[static_cast<std::size_t>(lane)] : std::string();
}

GpuLanes::Lease GpuLanes::acquire(int affinity) {
  if (!pinned_) return acquire();
  const std::size_t lane = static_cast<std::size_t>(std::max(0, affinity)) % busy_.size();
  std::unique_lock<std::mutex> lock(mutex_);
  freed_.wait(lock, [&] { return !busy_[lane]; });
  busy_[lane] = true;
  max_in_use_ = std::max(max_in_use_, ++in_use_);
  return Lease(*this, static_cast<int>(lane));
}

GpuLanes::Lease::~Lease() {
  if (owner_ != nullptr) owner_->release(lane_);
}

GpuLanes::Lease GpuLanes::acquire() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    for (std::size_t i = 0; i < busy_.size(); ++i)
      if (!busy_[i]) {
        busy_[i] = true;
        max_in_use_ = std::max(max_in_use_, ++in_use_);
        return Lease(*this, static_cast<int>(i));
      }
    freed_.wait(lock);
  }
}

void GpuLanes::release(int lane) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    busy_[static_cast<std::size_t>(lane)] = false;
    --in_use_;
  }
  freed_.notify_all();  // waiters may want a particular lane
}

int GpuLanes::max_in_use() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return max_in_use_;
}

void run_pool(std::size_t n, int threads, const std::function<void(std::size_t)>& task) {
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < n; i = next++) task(i);
  };
  const std::size_t t = std::min<std::size_t>(n, static_cast<std::size_t>(std::max(1, threads)));
  std::vector<std::thread> pool;
  for (std::size_t k = 1; k < t; ++k) pool.emplace_back(worker);
  worker();
  for (std::thread& th : pool) th.join();
}

}  // namespace cudamaster::exec
