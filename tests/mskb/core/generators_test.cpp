// The shared generators (mskb/core/generators.hpp) draw exactly what the serial loops they replaced drew:
// chunk c of 2^16 elements from Rng(base ^ c * 0xd1b54a32d192ed03) with base = one draw of the caller's Rng.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

namespace {

constexpr std::size_t kChunk = std::size_t{1} << 16;

// The serial form of a chunked fill: one stream per chunk, elements in index order.
template <class Value>
std::vector<double> serial_fill(std::size_t n, mskb::Rng& rng, Value value) {
  std::vector<double> v(n);
  const uint64_t base = rng.next();
  for (std::size_t c = 0; c * kChunk < n; ++c) {
    mskb::Rng local(base ^ (static_cast<uint64_t>(c) * 0xd1b54a32d192ed03ULL));
    for (std::size_t i = c * kChunk; i < n && i < (c + 1) * kChunk; ++i) v[i] = value(local, i);
  }
  return v;
}

TEST(Generators, FillEachEqualsTheSerialChunkedLoop) {
  const std::size_t n = 3 * kChunk + 17;  // several chunks and a partial one
  mskb::Rng a(42), b(42);
  std::vector<double> got(n);
  mskb::fill_each(got, a, [](mskb::Rng& r, std::size_t i) { return r.uniform(-1.0, 1.0) + static_cast<double>(i % 3); });
  const std::vector<double> want =
      serial_fill(n, b, [](mskb::Rng& r, std::size_t i) { return r.uniform(-1.0, 1.0) + static_cast<double>(i % 3); });
  EXPECT_EQ(got, want);
  EXPECT_EQ(a.next(), b.next());  // the caller's generator advanced by exactly one draw
}

TEST(Generators, FillEachMatchesRngFillUniform) {
  std::vector<double> x(2 * kChunk + 5), y(x.size());
  mskb::Rng a(7), b(7);
  mskb::fill_each(x, a, [](mskb::Rng& r, std::size_t) { return r.uniform(-3.0, 5.0); });
  b.fill_uniform(y, -3.0, 5.0);
  EXPECT_EQ(x, y);
}

TEST(Generators, ActivationInputIsTheOneIn16OutlierMix) {
  const std::size_t n = kChunk + 1000;
  mskb::Rng a(3), b(3);
  std::vector<double> got(n);
  mskb::fill_activation_input(got, a);
  const std::vector<double> want = serial_fill(n, b, [](mskb::Rng& r, std::size_t) {
    return (r.next() & 15u) == 0 ? r.uniform(-100.0, 100.0) : r.uniform(-5.0, 5.0);
  });
  EXPECT_EQ(got, want);
  std::size_t outliers = 0;
  for (double v : got) {
    EXPECT_LT(v, 100.0);
    EXPECT_GE(v, -100.0);
    if (v < -5.0 || v >= 5.0) ++outliers;
  }
  // About 1 in 16 draws is an outlier, and 95% of those fall outside (-5, 5).
  EXPECT_GT(outliers, n / 20);
  EXPECT_LT(outliers, n / 14);
}

}  // namespace
