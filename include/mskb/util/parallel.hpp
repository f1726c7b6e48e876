// Owns host parallelism for generators and FP64 references: a blocking parallel_for over
// [0, n) split into contiguous chunks across hardware threads.
#pragma once

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
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

// The most threads a parallel_for started from this thread may use (0: no cap). Set for a scope
// with ParallelCap: host work prepared in the background while the GPU times a kernel leaves
// cores to the process that launches it.
inline int& parallel_cap() {
  thread_local int cap = 0;
  return cap;
}
class ParallelCap {
 public:
  explicit ParallelCap(int threads) : saved_(parallel_cap()) { parallel_cap() = threads; }
  ~ParallelCap() { parallel_cap() = saved_; }
  ParallelCap(const ParallelCap&) = delete;
  ParallelCap& operator=(const ParallelCap&) = delete;

 private:
  int saved_;
};

// Lowers the calling thread's CPU priority by `by` nice steps (at most to 19). On Linux the nice
// value belongs to the thread, and the threads it starts afterwards (parallel_for's workers)
// inherit it. A lower priority needs no privilege; where it fails the thread keeps its priority,
// which costs only speed elsewhere. For host work that must yield to a timed process's launching
// thread whenever both want a core, and otherwise takes every idle CPU.
inline void lower_thread_priority(int by) {
  if (by <= 0) return;
  const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
  errno = 0;
  const int now = ::getpriority(PRIO_PROCESS, tid);
  if (now == -1 && errno != 0) return;
  (void)::setpriority(PRIO_PROCESS, tid, std::min(19, now + by));
}

template <class Fn>
void parallel_for(int64_t n, Fn&& fn, int64_t min_chunk = 1024) {
  const int64_t hw = parallel_cap() > 0 ? std::min(parallel_cap(), available_cpus()) : available_cpus();
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

// Deterministic FP64 sum of term(i) over [0, n): fixed chunks of `chunk` indices are summed in
// parallel and their partial sums added in chunk order, so the result is the same whatever the
// thread count (for n <= chunk, exactly the sequential sum). For references that reduce one huge
// dimension (2^28 terms): FP64 partial sums are far more accurate than any tolerance.
template <class Term>
double chunked_sum(int64_t n, Term&& term, int64_t chunk = int64_t{1} << 16) {
  if (n <= 0) return 0.0;
  const int64_t chunks = (n + chunk - 1) / chunk;
  std::vector<double> partial(static_cast<std::size_t>(chunks), 0.0);
  parallel_for(
      chunks,
      [&](int64_t c) {
        double acc = 0.0;
        const int64_t hi = std::min(n, (c + 1) * chunk);
        for (int64_t i = c * chunk; i < hi; ++i) acc += term(i);
        partial[static_cast<std::size_t>(c)] = acc;
      },
      1);
  double sum = 0.0;
  for (double v : partial) sum += v;
  return sum;
}

// Deterministic parallel generation over [0, n) (as Rng::fill_uniform): chunk c of 2^16 indices draws
// from its own generator, seeded from ONE draw of `rng` and c, and calls fn(local_rng, i) for its
// indices in order. The values do not depend on the thread count. (A template so that this header
// needs no Rng: R is mskb::Rng.)
template <class R, class Fn>
void chunked_fill(int64_t n, R& rng, Fn&& fn) {
  constexpr int64_t kChunk = int64_t{1} << 16;
  const uint64_t base = rng.next();
  parallel_for(
      (n + kChunk - 1) / kChunk,
      [&](int64_t c) {
        R local(base ^ (static_cast<uint64_t>(c) * 0xd1b54a32d192ed03ULL));
        for (int64_t i = c * kChunk, hi = std::min(n, (c + 1) * kChunk); i < hi; ++i) fn(local, i);
      },
      1);
}

// parallel_for over [0, n) in blocks of `block` indices (fn(lo, hi) per block), for elementwise
// loops too cheap to dispatch one index at a time.
template <class Fn>
void parallel_blocks(int64_t n, Fn&& fn, int64_t block = int64_t{1} << 16) {
  if (n <= 0) return;
  parallel_for((n + block - 1) / block, [&](int64_t b) { fn(b * block, std::min(n, (b + 1) * block)); }, 1);
}

}  // namespace mskb
