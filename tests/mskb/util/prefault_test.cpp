// The first touch of large host allocations (mskb/util/prefault.hpp) and mskb-runner's operator new
// (apps/mskb-runner/large_alloc.cpp, compiled into this test as into the runner): a large
// allocation is resident as it is returned, before anything writes it; a small one is not touched;
// contents are what C++ promises (a vector's zeros) and the memory goes back on delete.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "mskb/util/prefault.hpp"

namespace {

// Resident bytes of this process (/proc/self/statm, second field, in pages).
std::size_t resident_bytes() {
  unsigned long size = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%lu %lu", &size, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<std::size_t>(resident) * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

constexpr std::size_t kMiB = std::size_t{1} << 20;

TEST(Prefault, TouchesEveryPageOfTheRegion) {
  const std::size_t bytes = 300 * kMiB + 123;  // not a multiple of the page or of the threads' slices
  auto* p = static_cast<unsigned char*>(std::malloc(bytes));  // malloc: not through operator new
  ASSERT_NE(p, nullptr);
  const std::size_t before = resident_bytes();
  mskb::prefault(p, bytes);
  EXPECT_GE(resident_bytes(), before + bytes - 4 * kMiB);
  EXPECT_EQ(p[bytes - 1], 0);
  std::free(p);
}

// Where the allocations escape to (so the compiler cannot leave them out).
void* volatile g_sink = nullptr;

TEST(Prefault, LargeNewIsResidentBeforeItIsWritten) {
  const std::size_t before = resident_bytes();
  std::vector<double> big;
  big.reserve(mskb::kPrefaultMinBytes / sizeof(double) * 4);  // 256 MiB through std::allocator, unwritten
  g_sink = big.data();
  const std::size_t with_big = resident_bytes();
  EXPECT_GE(with_big, before + 4 * mskb::kPrefaultMinBytes - 4 * kMiB);
  // new[] too (libstdc++'s own operator new[] would bypass the replacement).
  std::unique_ptr<double[]> arr(new double[mskb::kPrefaultMinBytes / sizeof(double)]);
  g_sink = arr.get();
  const std::size_t with_arr = resident_bytes();
  EXPECT_GE(with_arr, with_big + mskb::kPrefaultMinBytes - 4 * kMiB);
  // Below the threshold nothing is touched: 48 MiB from new stays (almost) absent until written.
  std::vector<double> small;
  small.reserve(48 * kMiB / sizeof(double));
  g_sink = small.data();
  EXPECT_LT(resident_bytes(), with_arr + 8 * kMiB);
  big = std::vector<double>();
  EXPECT_LT(resident_bytes(), with_arr - 3 * mskb::kPrefaultMinBytes);  // freed: malloc unmapped it
}

TEST(Prefault, VectorContentsAreAsPromised) {
  std::vector<double> v(mskb::kPrefaultMinBytes / sizeof(double) * 2, 0.0);
  for (std::size_t i = 0; i < v.size(); i += 4096) ASSERT_EQ(v[i], 0.0);
  v.assign(v.size(), 1.5);
  EXPECT_EQ(v.back(), 1.5);
  std::vector<uint32_t> u(mskb::kPrefaultMinBytes / sizeof(uint32_t) + 1, 7u);
  EXPECT_EQ(u.front() + u.back(), 14u);
}

}  // namespace
