#include "cudamaster/exec/executor.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

namespace cudamaster::exec {

GpuLanes::GpuLanes(int lanes) : busy_(static_cast<std::size_t>(std::max(1, lanes)), false) {}

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
  freed_.notify_one();
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
