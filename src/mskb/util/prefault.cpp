#include "mskb/util/prefault.hpp"

#include <algorithm>
#include <cstdint>

#include "mskb/util/parallel.hpp"

namespace mskb {

void prefault(void* p, std::size_t bytes) {
  // Slices of 16 MiB (page-aligned), spread by parallel_for: its threads, within the calling
  // thread's ParallelCap (host work prepared beside a timing leaves the launching core alone).
  constexpr std::size_t kPage = 4096, kSlice = std::size_t{16} << 20;
  auto* base = static_cast<volatile unsigned char*>(p);
  const auto slices = static_cast<int64_t>((bytes + kSlice - 1) / kSlice);
  parallel_for(slices, [&](int64_t s) {
    const std::size_t to = std::min(bytes, (static_cast<std::size_t>(s) + 1) * kSlice);
    for (std::size_t i = static_cast<std::size_t>(s) * kSlice; i < to; i += kPage) base[i] = 0;
  }, 1);
}

}  // namespace mskb
