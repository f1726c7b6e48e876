// Lanes held one job at a time, and the worker pool (mskb/harness/lane_scheduler.hpp).
#include <algorithm>
#include <atomic>
#include <thread>

#include "mskb/harness/lane_scheduler.hpp"

namespace mskb {

LaneLeases::LaneLeases(int lanes, bool pinned) : busy_(static_cast<std::size_t>(std::max(1, lanes)), false), pinned_(pinned) {}

LaneLeases::LaneLeases(std::vector<std::string> devices)
    : busy_(std::max<std::size_t>(1, devices.size()), false), devices_(std::move(devices)) {}

std::string LaneLeases::device(int lane) const {
  return static_cast<std::size_t>(lane) < devices_.size() ? devices_[static_cast<std::size_t>(lane)] : std::string();
}

LaneLeases::Lease LaneLeases::acquire(int affinity) {
  if (!pinned_) return acquire();
  const std::size_t lane = static_cast<std::size_t>(std::max(0, affinity)) % busy_.size();
  std::unique_lock<std::mutex> lock(mutex_);
  freed_.wait(lock, [&] { return !busy_[lane]; });
  busy_[lane] = true;
  max_in_use_ = std::max(max_in_use_, ++in_use_);
  return Lease(*this, static_cast<int>(lane));
}

LaneLeases::Lease::~Lease() {
  if (owner_ != nullptr) owner_->release(lane_);
}

LaneLeases::Lease LaneLeases::acquire() {
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

void LaneLeases::release(int lane) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    busy_[static_cast<std::size_t>(lane)] = false;
    --in_use_;
  }
  freed_.notify_all();  // waiters may want a particular lane
}

int LaneLeases::max_in_use() const {
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

}  // namespace mskb
