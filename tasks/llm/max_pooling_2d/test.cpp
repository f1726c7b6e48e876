// Hand-checked cases for the max_pooling_2d FP64 reference.
#include <gtest/gtest.h>

#include <vector>

#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

std::vector<double> run(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t s, int64_t p, const std::vector<double>& x) {
  const TaskSpec& t = get_task("max_pooling_2d");
  const Shape sh{{"N", n}, {"C", c}, {"H", h}, {"W", w}, {"k", k}, {"s", s}, {"p", p}};
  const int64_t oh = (h + 2 * p - k) / s + 1, ow = (w + 2 * p - k) / s + 1;
  Args a(t.params.size());
  a[0].data.assign(x.begin(), x.end());
  a[1].data.assign(static_cast<std::size_t>(n * c * oh * ow), 0.0);
  t.reference(sh, Precision::fp32, a);
  return {a[1].data.begin(), a[1].data.end()};
}

TEST(MaxPooling2d, TwoByTwoStrideTwo) {
  // 4x4 -> 2x2.
  const auto y = run(1, 1, 4, 4, 2, 2, 0, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  ASSERT_EQ(y.size(), 4u);
  EXPECT_EQ(y, (std::vector<double>{6, 8, 14, 16}));
}

TEST(MaxPooling2d, PaddingIsIgnoredEvenForNegativeInputs) {
  // 2x2 all negative, k = 2, s = 1, p = 1 -> 3x3; corner windows see one real cell each.
  const auto y = run(1, 1, 2, 2, 2, 1, 1, {-1, -2, -3, -4});
  EXPECT_EQ(y, (std::vector<double>{-1, -1, -2, -1, -1, -2, -3, -3, -4}));
}

TEST(MaxPooling2d, StrideOverlapAndFloorDivision) {
  // 1x5 row, k = 3, s = 2, p = 0: oW = (5 - 3) / 2 + 1 = 2, windows {0..2}, {2..4}. H = 3 rows of the same.
  const std::vector<double> row = {3, 1, 4, 1, 5};
  std::vector<double> x;
  for (int r = 0; r < 3; ++r) x.insert(x.end(), row.begin(), row.end());
  const auto y = run(1, 1, 3, 5, 3, 2, 0, x);
  EXPECT_EQ(y, (std::vector<double>{4, 5}));
}

TEST(MaxPooling2d, PlanesAreIndependent) {
  // N = 1, C = 2, 2x2 planes, k = 2: one max per plane.
  const auto y = run(1, 2, 2, 2, 2, 1, 0, {1, 9, 2, 3, -5, -6, -7, -8});
  EXPECT_EQ(y, (std::vector<double>{9, -5}));
}

TEST(MaxPooling2d, OneByOneWindowIsIdentity) {
  const auto y = run(2, 1, 1, 3, 1, 1, 0, {0.5, -0.5, 2, 7, 8, -9});
  EXPECT_EQ(y, (std::vector<double>{0.5, -0.5, 2, 7, 8, -9}));
}

TEST(MaxPooling2d, OutputSizesMatchTheFormula) {
  const TaskSpec& t = get_task("max_pooling_2d");
  const Shape s{{"N", 2}, {"C", 5}, {"H", 37}, {"W", 53}, {"k", 5}, {"s", 3}, {"p", 2}};
  const Args in = make_inputs(t, s, Precision::fp32, 1);
  EXPECT_EQ(in[1].data.size(), static_cast<std::size_t>(2 * 5 * ((37 + 4 - 5) / 3 + 1) * ((53 + 4 - 5) / 3 + 1)));
  EXPECT_EQ(in[6].value, 5.0);
  EXPECT_EQ(in[8].value, 2.0);
}

TEST(MaxPooling2d, InputsAreCounterDrawsOfBothSigns) {
  // Uniform inputs (the verifier draws large ones on the GPU): U(-1, 1), so about half the values are
  // negative and a padding treated as 0 would win at the borders.
  const TaskSpec& t = get_task("max_pooling_2d");
  ASSERT_TRUE(t.uniform_inputs);
  EXPECT_EQ(t.uniform_inputs->range[0].lo, -1.0);
  EXPECT_EQ(t.uniform_inputs->range[0].hi, 1.0);
  const Shape s{{"N", 2}, {"C", 5}, {"H", 37}, {"W", 53}, {"k", 5}, {"s", 3}, {"p", 2}};
  const Args in = make_inputs(t, s, Precision::fp32, 3);
  std::size_t negative = 0;
  for (double v : in[0].data) {
    ASSERT_GE(v, -1.0);
    ASSERT_LE(v, 1.0);
    negative += v < 0 ? 1 : 0;
  }
  EXPECT_GT(negative, in[0].data.size() * 4 / 10);
  EXPECT_LT(negative, in[0].data.size() * 6 / 10);
  EXPECT_NE(make_inputs(t, s, Precision::fp32, 4)[0].data, in[0].data);  // the seed matters
}

}  // namespace
