// Hand-checked cases for the triangle_attention FP64 reference (per-dimension causal attention).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

std::vector<double> run(int64_t b, int64_t h, int64_t s, int64_t d, const std::vector<double>& q, const std::vector<double>& k,
                        const std::vector<double>& v) {
  const TaskSpec& t = get_task("triangle_attention");
  Args a(t.params.size());
  a[0].data.assign(q.begin(), q.end());
  a[1].data.assign(k.begin(), k.end());
  a[2].data.assign(v.begin(), v.end());
  a[3].data.assign(static_cast<std::size_t>(b * s * s), 0.0);
  a[4].data.assign(q.size(), 0.0);
  a[5].value = static_cast<double>(b);
  a[6].value = static_cast<double>(h);
  a[7].value = static_cast<double>(s);
  a[8].value = static_cast<double>(d);
  t.reference(Shape{{"b", b}, {"h", h}, {"s", s}, {"d", d}}, Precision::fp32, a);
  return {a[4].data.begin(), a[4].data.end()};
}

TEST(TriangleAttention, CausalSoftmaxOverEarlierKeys) {
  // d = 1 (scale 1). Position 0 sees only key 0; position 1 scores {q1*k0, q1*k1} = {0, ln 3}.
  const auto y = run(1, 1, 2, 1, {5.0, std::log(3.0)}, {0.0, 1.0}, {4.0, 8.0});
  EXPECT_DOUBLE_EQ(y[0], 4.0);
  EXPECT_NEAR(y[1], 4.0 * 0.25 + 8.0 * 0.75, 1e-14);
}

TEST(TriangleAttention, DimensionsDoNotMix) {
  // d = 2, scale 1/sqrt(2). Dimension 0: q = 0 -> uniform weights; dimension 1 at i = 1: q = sqrt(2), so
  // the scores are k / sqrt(2) * sqrt(2) = {0, ln 3}.
  // Layout [s][d]: q = {q00, q01, q10, q11}.
  const double r2 = std::sqrt(2.0);
  const auto y = run(1, 1, 2, 2, {0, 0, 0, r2}, {1, 0, 1, std::log(3.0)}, {2, 10, 4, 20});
  EXPECT_DOUBLE_EQ(y[0], 2.0);
  EXPECT_DOUBLE_EQ(y[1], 10.0);
  EXPECT_NEAR(y[2], 3.0, 1e-14);                        // dim 0 at i = 1: mean of {2, 4}
  EXPECT_NEAR(y[3], 10.0 * 0.25 + 20.0 * 0.75, 1e-14);  // dim 1: scores {0, ln 3}
}

TEST(TriangleAttention, FutureKeysAndOtherHeadsAreIgnored) {
  // b = 1, h = 2, s = 3, d = 1: changing the last key/value of head 1 leaves head 0 and earlier rows alone.
  const std::vector<double> q = {1, 2, 3, 1, 2, 3}, k = {0.5, -0.5, 1, 0.5, -0.5, 1};
  std::vector<double> v = {1, 2, 3, 1, 2, 3};
  const auto a = run(1, 2, 3, 1, q, k, v);
  std::vector<double> k2 = k;
  k2[5] = -7;
  v[5] = 100;
  const auto b = run(1, 2, 3, 1, q, k2, v);
  for (int i = 0; i < 5; ++i) EXPECT_DOUBLE_EQ(a[static_cast<std::size_t>(i)], b[static_cast<std::size_t>(i)]) << i;
  EXPECT_NE(a[5], b[5]);
}

TEST(TriangleAttention, LargeScoresDoNotOverflow) {
  // Scores {1000, 999} at position 1 (d = 1): weights e/(e+1), 1/(e+1).
  const auto y = run(1, 1, 2, 1, {0.0, 1000.0}, {1.0, 0.999}, {1.0, 0.0});
  EXPECT_NEAR(y[1], std::exp(1.0) / (std::exp(1.0) + 1.0), 1e-12);
}

TEST(TriangleAttention, MaskIsOneAboveTheDiagonal) {
  const TaskSpec& t = get_task("triangle_attention");
  const Args in = make_inputs(t, Shape{{"b", 2}, {"h", 3}, {"s", 100}, {"d", 48}}, Precision::bf16, 1);
  ASSERT_EQ(in[3].data.size(), 2u * 100 * 100);
  for (std::size_t bb = 0; bb < 2; ++bb)
    for (std::size_t i = 0; i < 100; ++i)
      for (std::size_t j = 0; j < 100; ++j) ASSERT_EQ(in[3].data[(bb * 100 + i) * 100 + j], j > i ? 1.0 : 0.0);
}

}  // namespace
