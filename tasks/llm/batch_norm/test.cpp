// Hand-checked cases for the batch_norm FP64 reference.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "mskb/instance.hpp"
#include "mskb/registry.hpp"

using namespace mskb;

namespace {

std::vector<double> run(int64_t n, int64_t c, const std::vector<double>& x, const std::vector<double>& g,
                        const std::vector<double>& b, double eps) {
  const TaskSpec& t = get_task("batch_norm");
  Args a(t.params.size());
  a[0].data.assign(x.size(), 0.0);
  a[1].data = x;
  a[2].data = g;
  a[3].data = b;
  a[4].value = eps;
  a[5].value = static_cast<double>(n);
  a[6].value = static_cast<double>(c);
  t.reference(Shape{{"N", n}, {"C", c}}, Precision::fp32, a);
  return a[0].data;
}

TEST(BatchNorm, StatisticsPerChannelOverRows) {
  // 2 x 2, row-major: channel 0 = {1, 3} (mean 2, var 1), channel 1 = {10, 10} (var 0).
  const auto y = run(2, 2, {1, 10, 3, 10}, {1, 1}, {0, 5}, 0.0 + 1e-300);
  EXPECT_NEAR(y[0], -1.0, 1e-12);
  EXPECT_NEAR(y[2], 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(y[1], 5.0);  // constant channel: output = beta
  EXPECT_DOUBLE_EQ(y[3], 5.0);
}

TEST(BatchNorm, BiasedVarianceGammaBetaAndEpsilon) {
  // One channel {0, 2, 4, 6}: mean 3, biased var (9 + 1 + 1 + 9) / 4 = 5; eps = 4 -> 1/sqrt(9) = 1/3.
  const auto y = run(4, 1, {0, 2, 4, 6}, {3}, {-1}, 4.0);
  EXPECT_DOUBLE_EQ(y[0], 3.0 * (-3.0 / 3.0) - 1.0);
  EXPECT_DOUBLE_EQ(y[1], 3.0 * (-1.0 / 3.0) - 1.0);
  EXPECT_DOUBLE_EQ(y[2], 3.0 * (1.0 / 3.0) - 1.0);
  EXPECT_DOUBLE_EQ(y[3], 3.0 * (3.0 / 3.0) - 1.0);
}

TEST(BatchNorm, SingleRowGivesBeta) {
  const auto y = run(1, 3, {4, -2, 7}, {2, 2, 2}, {0.5, -0.5, 1.5}, 1e-5);
  EXPECT_DOUBLE_EQ(y[0], 0.5);
  EXPECT_DOUBLE_EQ(y[1], -0.5);
  EXPECT_DOUBLE_EQ(y[2], 1.5);
}

TEST(BatchNorm, GeneratedChannelsAreNormalised) {
  // With gamma 1 and beta 0 substituted every channel of the reference output has mean 0, variance ~1.
  const TaskSpec& t = get_task("batch_norm");
  const Shape s{{"N", 1025}, {"C", 129}};
  Args in = make_inputs(t, s, Precision::bf16, 2);
  for (auto& v : in[2].data) v = 1.0;
  for (auto& v : in[3].data) v = 0.0;
  const Args e = make_expected(t, s, Precision::bf16, in);
  for (std::size_t k : {std::size_t{0}, std::size_t{64}, std::size_t{128}}) {
    double m = 0, q = 0;
    for (std::size_t r = 0; r < 1025; ++r) m += e[0].data[r * 129 + k];
    m /= 1025.0;
    for (std::size_t r = 0; r < 1025; ++r) q += (e[0].data[r * 129 + k] - m) * (e[0].data[r * 129 + k] - m);
    EXPECT_NEAR(m, 0.0, 1e-12);
    EXPECT_NEAR(q / 1025.0, 1.0, 1e-4);
  }
}

}  // namespace
