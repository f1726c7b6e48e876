// The shared generators (mskb/core/generators.hpp) draw exactly what the serial loops they replaced drew:
// chunk c of 2^16 elements from Rng(base ^ c * 0xd1b54a32d192ed03) with base = one draw of the caller's Rng.
#include <gtest/gtest.h>

#include <algorithm>
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

// The mixes (DrawMix): what each draws, and set_uniform_inputs refusing the combinations it does not know.
TEST(Generators, MixesDrawWhatTheySay) {
  using mskb::counter_draw;
  // row_halves: the value half of each row of 10 (from element 6) from [-2, 2), the rest as its first part.
  const mskb::UniformRange halves = mskb::row_halves(mskb::kActivationInput, 10, 6, -2.0, 2.0);
  for (uint64_t i = 0; i < 10000; ++i) {
    const mskb::UniformRange part = i % 10 >= 6 ? mskb::UniformRange{-2.0, 2.0} : mskb::kActivationInput;
    ASSERT_EQ(counter_draw(4, i, halves), counter_draw(4, i, part)) << i;
  }
  // channels: per channel (i % 8) one offset and one spread, element = offset + spread * U(-1, 1).
  const mskb::UniformRange ch = mskb::channel_draws(-1.0, 1.0, 8, -0.5, 0.5, 1.0, 2.0);
  for (uint64_t c = 0; c < 8; ++c) {
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (uint64_t r = 0; r < 4000; ++r) {
      const double v = counter_draw(6, r * 8 + c, ch);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    EXPECT_LE(std::fabs((lo + hi) / 2), 0.51) << c;  // the offset
    EXPECT_GE((hi - lo) / 2, 0.99) << c;              // the spread
    EXPECT_LE((hi - lo) / 2, 2.0) << c;
  }
  // ties: within [lo, hi), about half on the grid of quarters, mean ~0, standard deviation (hi - lo) / sqrt(48).
  const mskb::UniformRange ties = mskb::tie_draws(-5.2, 5.2, 4.0);
  const int n = 100000;
  int on_grid = 0;
  double sum = 0, sq = 0;
  for (int i = 0; i < n; ++i) {
    const double v = counter_draw(8, static_cast<uint64_t>(i), ties);
    ASSERT_GE(v, -5.2);
    ASSERT_LE(v, 5.2);
    ASSERT_FALSE(v == 0.0 && std::signbit(v));
    on_grid += v * 4 == std::round(v * 4) ? 1 : 0;
    sum += v;
    sq += v * v;
  }
  EXPECT_NEAR(on_grid, n / 2, n / 50);
  EXPECT_NEAR(sum / n, 0.0, 0.03);
  EXPECT_NEAR(std::sqrt(sq / n), 10.4 / std::sqrt(48.0), 0.03);
  // keys: a quarter integers of [-8, 8], a quarter in [-1, 1), half +-2^e * m with e in [-10, 13], m in [1, 2).
  const mskb::UniformRange keys = mskb::key_draws(-8.0, 8.0, -1.0, 1.0, -10.0, 13.0);
  int integers = 0, small = 0, negative = 0;
  std::vector<int> exponents(24, 0);
  for (int i = 0; i < n; ++i) {
    const double v = counter_draw(10, static_cast<uint64_t>(i), keys);
    ASSERT_FALSE(v == 0.0 && std::signbit(v));
    negative += v < 0 ? 1 : 0;
    const uint64_t kind = mskb::counter_bits(10, static_cast<uint64_t>(i)) & 3u;
    if (kind == 0) {
      ASSERT_EQ(v, std::floor(v));
      ASSERT_LE(std::fabs(v), 8.0);
      ++integers;
    } else if (kind == 1) {
      ASSERT_LT(std::fabs(v), 1.0 + 1e-15);
      ++small;
    } else {
      int e = 0;
      const double m = std::frexp(std::fabs(v), &e);  // |v| = m 2^e, m in [0.5, 1): the exponent of [1, 2) is e - 1
      ASSERT_GE(m, 0.5);
      ASSERT_GE(e - 1, -10);
      ASSERT_LE(e - 1, 13);
      ++exponents[static_cast<std::size_t>(e - 1 + 10)];
    }
  }
  EXPECT_NEAR(integers, n / 4, n / 50);
  EXPECT_NEAR(small, n / 4, n / 50);
  EXPECT_NEAR(negative, n / 2, n / 25);
  for (int c : exponents) EXPECT_NEAR(c, n / 2 / 24, n / 2 / 24 / 5);
  // paired: against a partner drawn from [-100, 100) with key 12, 205 in 2048 equal, 205 in 2048
  // within U(-1, 1) of it, the rest independent from [-50, 50).
  mskb::UniformRange pair = mskb::paired_draws(-50.0, 50.0, 1, -1.0, 1.0);
  pair.partner_key = 12;
  pair.lo2 = -100.0;
  pair.hi2 = 100.0;
  int equal = 0, near = 0;
  for (int i = 0; i < n; ++i) {
    const double v = counter_draw(14, static_cast<uint64_t>(i), pair);
    const double p = mskb::counter_uniform(12, static_cast<uint64_t>(i), -100.0, 100.0);
    const uint64_t pick = mskb::counter_bits(14, static_cast<uint64_t>(i)) & 2047u;
    if (pick < 205) {
      ASSERT_EQ(v, p) << i;
      ++equal;
    } else if (pick < 410) {
      ASSERT_NE(v, p) << i;
      ASSERT_LE(std::fabs(v - p), 1.0) << i;
      ++near;
    } else {
      ASSERT_GE(v, -50.0);
      ASSERT_LT(v, 50.0);
    }
  }
  EXPECT_NEAR(equal, n * 205 / 2048, n / 100);
  EXPECT_NEAR(near, n * 205 / 2048, n / 100);
  // A mix is for real buffers, and only row_halves keeps a first or wide range.
  auto layout = [](const mskb::Shape&, mskb::Rng&, std::vector<std::size_t>& e, std::vector<double>&) { e.assign(e.size(), 4); };
  mskb::TaskSpec t;
  t.name = "mixes";
  t.params = {mskb::out("y"), mskb::in("x")};
  EXPECT_NO_THROW(mskb::set_uniform_inputs(t, {layout, {{}, halves}}));
  mskb::UniformRange widened = ties;
  widened.wide_lo = -100.0;
  widened.wide_hi = 100.0;
  EXPECT_THROW(mskb::set_uniform_inputs(t, {layout, {{}, widened}}), std::logic_error);
  // A period of 0 is refused when drawn (a shape_range that forgot it).
  mskb::TaskSpec z = t;
  mskb::set_uniform_inputs(z, {layout, {{}, mskb::channel_draws(-1.0, 1.0, 0, 0.0, 0.0, 1.0, 1.0)}});
  mskb::Rng rng(1);
  EXPECT_THROW(mskb::draw_uniform(z, mskb::Shape{{"N", 4}}, rng), std::logic_error);
  // A paired range takes its partner's key and range from the draw; the partner must be another
  // input drawn as a plain uniform, at least as long.
  mskb::TaskSpec two;
  two.name = "pairs";
  two.params = {mskb::out("y"), mskb::in("a"), mskb::in("b")};
  const mskb::UniformRange b_of_a = mskb::paired_draws(-50.0, 50.0, 1, -1.0, 1.0);
  mskb::set_uniform_inputs(two, {layout, {{}, mskb::UniformRange{-100.0, 100.0}, b_of_a}});
  const mskb::UniformDraw d = mskb::draw_uniform(two, mskb::Shape{{"N", 4}}, rng);
  EXPECT_EQ(d.ranges[2].partner_key, d.keys[1]);
  EXPECT_EQ(d.ranges[2].lo2, -100.0);
  EXPECT_EQ(d.ranges[2].hi2, 100.0);
  mskb::TaskSpec bad = two;
  EXPECT_THROW(mskb::set_uniform_inputs(bad, {layout, {{}, mskb::kActivationInput, b_of_a}}), std::logic_error);  // outliers
  EXPECT_THROW(mskb::set_uniform_inputs(bad, {layout, {{}, mskb::UniformRange{-1.0, 1.0}, mskb::paired_draws(-1.0, 1.0, 0, -1.0, 1.0)}}),
               std::logic_error);  // an output
  EXPECT_THROW(mskb::set_uniform_inputs(bad, {layout, {{}, mskb::UniformRange{-1.0, 1.0}, mskb::paired_draws(-1.0, 1.0, 2, -1.0, 1.0)}}),
               std::logic_error);  // itself
  mskb::TaskSpec shorter = two;
  mskb::set_uniform_inputs(shorter, {[](const mskb::Shape&, mskb::Rng&, std::vector<std::size_t>& e, std::vector<double>&) { e = {4, 3, 4}; },
                                     {{}, mskb::UniformRange{-100.0, 100.0}, b_of_a}});
  EXPECT_THROW(mskb::draw_uniform(shorter, mskb::Shape{{"N", 4}}, rng), std::logic_error);
}

}  // namespace
