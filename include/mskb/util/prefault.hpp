// Owns the first touch of large host allocations. A fresh allocation's pages are faulted in (and
// zeroed by the kernel) one at a time by whichever thread touches them first; for the
// gigabytes a large shape's inputs and expected outputs take, one thread doing that (a vector's
// resize, which value-initializes serially) was most of an instance's generation (perf on a 2-core
// VM: 81% of spmm_csr's 2^18-row instance in the kernel's clear_page). prefault() faults a region in
// from all CPUs first, so the serial pass then runs at memory speed. Host-only.
#pragma once

#include <cstddef>

namespace mskb {

// Allocations from this size on are worth faulting in parallel (see large_alloc.cpp of mskb-runner).
constexpr std::size_t kPrefaultMinBytes = std::size_t{64} << 20;

// Writes a zero byte into every 4 KiB page of [p, p + bytes), in 16 MiB slices over parallel_for's
// threads (within the calling thread's ParallelCap). Only for memory whose contents do not matter
// yet: a fresh allocation.
void prefault(void* p, std::size_t bytes);

}  // namespace mskb
