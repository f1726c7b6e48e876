// Hand-checked cases for the rms_norm FP64 reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "mskb/instance.hpp"
#include "mskb/registry.hpp"

using namespace mskb;

namespace {

std::vector<double> run(const std::vector<double>& x, const std::vector<double>& w, const std::vector<double>& b, double eps) {
  const TaskSpec& t = get_task("rms_norm");
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

TEST(RmsNorm, NoMeanSubtraction) {
  // mean(x^2) = (9 + 16) / 2 = 12.5; x = {3, 4} is not centred and stays positive.
  const auto y = run({3, 4}, {1, 1}, {0, 0}, 0.0);
  EXPECT_NEAR(y[0], 3.0 / std::sqrt(12.5), 1e-15);
  EXPECT_NEAR(y[1], 4.0 / std::sqrt(12.5), 1e-15);
}

TEST(RmsNorm, ElementwiseWeightAndBias) {
  // mean(x^2) = (1 + 1 + 1 + 1) / 4 = 1.
  const auto y = run({1, -1, 1, -1}, {2, 3, 4, 5}, {0.5, 0.5, -0.5, -0.5}, 0.0);
  EXPECT_DOUBLE_EQ(y[0], 2.5);
  EXPECT_DOUBLE_EQ(y[1], -2.5);
  EXPECT_DOUBLE_EQ(y[2], 3.5);
  EXPECT_DOUBLE_EQ(y[3], -5.5);
}

TEST(RmsNorm, EpsilonInsideTheSquareRoot) {
  // mean(x^2) = 1, eps = 3: rms = 2.
  const auto y = run({1, -1}, {1, 1}, {0, 0}, 3.0);
  EXPECT_DOUBLE_EQ(y[0], 0.5);
  EXPECT_DOUBLE_EQ(y[1], -0.5);
}

TEST(RmsNorm, SingleElementAndZeroInput) {
  // N = 1: x / sqrt(x^2 + eps); all-zero input: output = bias.
  EXPECT_NEAR(run({2.0}, {1.0}, {0.0}, 1e-5)[0], 2.0 / std::sqrt(4.0 + 1e-5), 1e-15);
  const auto y = run({0, 0, 0}, {5, 6, 7}, {-1, 0, 1}, 1e-5);
  EXPECT_DOUBLE_EQ(y[0], -1.0);
  EXPECT_DOUBLE_EQ(y[1], 0.0);
  EXPECT_DOUBLE_EQ(y[2], 1.0);
}

TEST(RmsNorm, ScaleInvariantWithoutEpsilon) {
  const auto a = run({1, 2, 3}, {1, 1, 1}, {0, 0, 0}, 0.0);
  const auto b = run({1e4, 2e4, 3e4}, {1, 1, 1}, {0, 0, 0}, 0.0);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(a[static_cast<std::size_t>(i)], b[static_cast<std::size_t>(i)], 1e-14);
}

TEST(RmsNorm, GeneratedInstanceHasUnitRms) {
  const TaskSpec& t = get_task("rms_norm");
  const Shape s{{"N", 4097}};
  Args in = make_inputs(t, s, Precision::fp32, 5);
  std::fill(in[2].data.begin(), in[2].data.end(), 1.0);
  std::fill(in[3].data.begin(), in[3].data.end(), 0.0);
  const Args e = make_expected(t, s, Precision::fp32, in);
  double q = 0;
  for (double v : e[0].data) q += v * v;
  EXPECT_NEAR(q / 4097.0, 1.0, 1e-5);
}

}  // namespace
