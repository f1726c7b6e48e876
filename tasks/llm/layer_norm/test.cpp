// Hand-checked cases for the layer_norm FP64 reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "mskb/instance.hpp"
#include "mskb/registry.hpp"

using namespace mskb;

namespace {

std::vector<double> run(const std::vector<double>& x, const std::vector<double>& w, const std::vector<double>& b, double eps) {
  const TaskSpec& t = get_task("layer_norm");
  Args a(t.params.size());
  a[0].data.assign(x.size(), 0.0);
  a[1].data = x;
  a[2].data = w;
  a[3].data = b;
  a[4].value = eps;
  a[5].value = static_cast<double>(x.size());
  t.reference(Shape{{"N", static_cast<int64_t>(x.size())}}, Precision::fp32, a);
  return a[0].data;
}

TEST(LayerNorm, UnitAffine) {
  // mean 2.5, biased variance (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25.
  const auto y = run({1, 2, 3, 4}, {1, 1, 1, 1}, {0, 0, 0, 0}, 0.0);
  const double r = 1.0 / std::sqrt(1.25);
  EXPECT_NEAR(y[0], -1.5 * r, 1e-15);
  EXPECT_NEAR(y[1], -0.5 * r, 1e-15);
  EXPECT_NEAR(y[2], 0.5 * r, 1e-15);
  EXPECT_NEAR(y[3], 1.5 * r, 1e-15);
}

TEST(LayerNorm, ElementwiseWeightAndBias) {
  // mean 1, var 1: normalised {-1, 1}; y = w * xhat + b.
  const auto y = run({0, 2}, {2, 3}, {1, -1}, 0.0);
  EXPECT_DOUBLE_EQ(y[0], -1.0);
  EXPECT_DOUBLE_EQ(y[1], 2.0);
}

TEST(LayerNorm, EpsilonInsideTheSquareRoot) {
  // var 1, eps 3: 1/sqrt(4) = 0.5.
  const auto y = run({0, 2}, {1, 1}, {0, 0}, 3.0);
  EXPECT_DOUBLE_EQ(y[0], -0.5);
  EXPECT_DOUBLE_EQ(y[1], 0.5);
}

TEST(LayerNorm, SingleElementAndConstantInputGiveTheBias) {
  EXPECT_DOUBLE_EQ(run({7.0}, {2.0}, {0.25}, 1e-5)[0], 0.25);
  const auto y = run({3, 3, 3}, {5, 6, 7}, {-1, 0, 1}, 1e-5);
  EXPECT_DOUBLE_EQ(y[0], -1.0);
  EXPECT_DOUBLE_EQ(y[1], 0.0);
  EXPECT_DOUBLE_EQ(y[2], 1.0);
}

TEST(LayerNorm, LargeOffsetDoesNotCancel) {
  // Two-pass statistics: a mean of 1e6 must not destroy a unit variance.
  const auto y = run({1e6 - 1, 1e6 + 1}, {1, 1}, {0, 0}, 0.0);
  EXPECT_NEAR(y[0], -1.0, 1e-12);
  EXPECT_NEAR(y[1], 1.0, 1e-12);
}

TEST(LayerNorm, GeneratedInstanceIsNormalised) {
  // With weight 1 and bias 0 substituted, the reference output has mean 0 and variance var/(var+eps).
  const TaskSpec& t = get_task("layer_norm");
  const Shape s{{"N", 4097}};
  Args in = make_inputs(t, s, Precision::bf16, 3);
  EXPECT_EQ(in[4].value, static_cast<double>(1e-5f));
  std::fill(in[2].data.begin(), in[2].data.end(), 1.0);
  std::fill(in[3].data.begin(), in[3].data.end(), 0.0);
  const Args e = make_expected(t, s, Precision::bf16, in);
  double m = 0, q = 0;
  for (double v : e[0].data) m += v;
  m /= 4097.0;
  for (double v : e[0].data) q += (v - m) * (v - m);
  EXPECT_NEAR(m, 0.0, 1e-12);
  EXPECT_NEAR(q / 4097.0, 1.0, 1e-5);
}

}  // namespace
