// Owns host parallelism for generators and FP64 references: a blocking parallel_for over
// [0, n) split into contiguous chunks across hardware threads.
#pragma once

#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace mskb {

// CPUs this process may run on (its affinity mask: a Slurm job's or taskset's CPUs, not the
// whole node), at least 1.
inline int available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

template <class Fn>
void parallel_for(int64_t n, Fn&& fn, int64_t min_chunk = 1024) {
  const int64_t hw = available_cpus();
  const int64_t workers = std::min<int64_t>(hw, std::max<int64_t>(1, n / std::max<int64_t>(1, min_chunk)));
  if (workers <= 1) {
    for (int64_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::vector<std::thread> threads;
  const int64_t chunk = (n + workers - 1) / workers;
  for (int64_t w = 0; w < workers; ++w) {
    const int64_t lo = w * chunk, hi = std::min(n, lo + chunk);
    if (lo >= hi) break;
    threads.emplace_back([lo, hi, &fn] {
      for (int64_t i = lo; i < hi; ++i) fn(i);
    });
  }
  for (auto& t : threads) t.join();
}

}  // namespace mskb
