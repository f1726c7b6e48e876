// The shared generators (mskb/core/generators.hpp) draw exactly what the serial loops they replaced drew:
// chunk c of 2^16 elements from Rng(base ^ c * 0xd1b54a32d192ed03) with base = one draw of the caller's Rng.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "mskb/core/counter_rng.hpp"
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

// The activation tasks' inputs (kActivationInput): U(-5, 5) with one element in 16 from
// U(-100, 100), chosen by the low 4 bits of the element's counter output; a first range replaces
// element 0 only.
TEST(Generators, ActivationInputIsTheOneIn16OutlierMix) {
  const std::size_t n = kChunk + 1000;
  std::size_t outliers = 0, wide = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = mskb::counter_draw(3, i, mskb::kActivationInput);
    const bool chosen = (mskb::counter_bits(3, i) & 15u) == 0;
    wide += chosen;
    // Not chosen: exactly the narrow draw. Chosen: the same 53 bits scaled to the wide range.
    EXPECT_EQ(v, mskb::counter_uniform(3, i, chosen ? -100.0 : -5.0, chosen ? 100.0 : 5.0)) << i;
    EXPECT_LT(v, 100.0);
    EXPECT_GE(v, -100.0);
    if (v < -5.0 || v >= 5.0) ++outliers;
  }
  // About 1 in 16 draws is an outlier, and 95% of those fall outside (-5, 5).
  EXPECT_GT(outliers, n / 20);
  EXPECT_LT(outliers, n / 14);
  EXPECT_GT(wide, n / 18);
  EXPECT_LT(wide, n / 14);
  // Without a wide range the draw is counter_uniform; a first range moves element 0 only.
  const mskb::UniformRange plain{-1.0, 1.0}, first{-1.0, 1.0, 0.0, 0.0, 0.5, 5.0};
  for (uint64_t i = 0; i < 1000; ++i) {
    EXPECT_EQ(mskb::counter_draw(9, i, plain), mskb::counter_uniform(9, i, -1.0, 1.0));
    if (i > 0) {
      EXPECT_EQ(mskb::counter_draw(9, i, first), mskb::counter_uniform(9, i, -1.0, 1.0));
    }
  }
  EXPECT_EQ(mskb::counter_draw(9, 0, first), mskb::counter_uniform(9, 0, 0.5, 5.0));
}

// Integer ranges (int32 inputs such as labels): every integer of [lo, hi] about equally often,
// nothing else; set_uniform_inputs takes them on read-only int32 buffers only, and an int32 input
// only with one.
TEST(Generators, IntegerRangesDrawEveryIntegerOfTheRange) {
  mskb::UniformRange r{-3.0, 4.0};
  r.integer = true;
  std::vector<int> count(8, 0);
  const int n = 80000;
  for (int i = 0; i < n; ++i) {
    const double v = mskb::counter_draw(5, static_cast<uint64_t>(i), r);
    ASSERT_EQ(v, std::floor(v)) << i;
    ASSERT_GE(v, -3.0);
    ASSERT_LE(v, 4.0);
    ++count[static_cast<std::size_t>(v + 3.0)];
  }
  for (int c : count) EXPECT_NEAR(c, n / 8, n / 80);
  mskb::UniformRange labels{0.0, 1.0};
  labels.integer = true;
  auto layout = [](const mskb::Shape&, mskb::Rng&, std::vector<std::size_t>& e, std::vector<double>&) { e.assign(e.size(), 4); };
  mskb::TaskSpec ok;
  ok.name = "labels";
  ok.params = {mskb::out("y"), mskb::in("t", mskb::Elem::i32)};
  EXPECT_NO_THROW(mskb::set_uniform_inputs(ok, {layout, {{}, labels}}));
  mskb::TaskSpec real = ok;
  EXPECT_THROW(mskb::set_uniform_inputs(real, {layout, {{}, mskb::UniformRange{0.0, 1.0}}}), std::logic_error);
  mskb::TaskSpec on_real = ok;
  on_real.params = {mskb::out("y"), mskb::in("x")};
  EXPECT_THROW(mskb::set_uniform_inputs(on_real, {layout, {{}, labels}}), std::logic_error);
  mskb::TaskSpec in_place = ok;
  in_place.params = {mskb::out("y"), mskb::inplace("t", mskb::Elem::i32)};
  EXPECT_THROW(mskb::set_uniform_inputs(in_place, {layout, {{}, labels}}), std::logic_error);
  mskb::UniformRange half = labels;
  half.hi = 1.5;
  EXPECT_THROW(mskb::set_uniform_inputs(ok, {layout, {{}, half}}), std::logic_error);
}

}  // namespace
