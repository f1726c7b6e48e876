// Hand-checked cases for the MSE_loss FP64 reference.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/uniform_inputs.hpp"
#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

double ref(const std::vector<double>& x, const std::vector<double>& y, Precision p = Precision::fp32) {
  const TaskSpec& t = get_task("MSE_loss");
  Args a(t.params.size());
  a[0].data = {0.0};
  a[1].data.assign(x.begin(), x.end());
  a[2].data.assign(y.begin(), y.end());
  a[3].value = static_cast<double>(x.size());
  t.reference(Shape{{"N", static_cast<int64_t>(x.size())}}, p, a);
  return a[0].data[0];
}

bool within(const Tolerance& tol, double got, double want) {
  return std::fabs(got - want) <= tol.atol + tol.rtol * std::fabs(want);
}

TEST(MseLoss, HandComputedMean) {
  // Differences 1, -2, 0.5: squares 1, 4, 0.25; mean 5.25 / 3.
  EXPECT_DOUBLE_EQ(ref({1.0, -1.0, 0.5}, {0.0, 1.0, 0.0}), 5.25 / 3.0);
  EXPECT_DOUBLE_EQ(ref({0.75}, {-0.25}, Precision::bf16), 1.0);
}

TEST(MseLoss, EqualInputsGiveZero) { EXPECT_EQ(ref({0.5, -0.25, 1.0}, {0.5, -0.25, 1.0}), 0.0); }

TEST(MseLoss, SpansSeveralChunks) {
  const std::size_t n = 200000;  // crosses the reference's 65536-element chunks
  std::vector<double> x(n), y(n, 0.0);
  double want = 0;
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = static_cast<double>(i % 5) - 2.0;
    want += x[i] * x[i];
  }
  EXPECT_DOUBLE_EQ(ref(x, y), want / static_cast<double>(n));
}

TEST(MseLoss, OneBlocksShareFails) {
  // What a kernel that overwrites instead of accumulating leaves: one 256-element block's sum / N.
  const TaskSpec& t = get_task("MSE_loss");
  const Shape s{{"N", 1 << 10}};
  for (Precision p : {Precision::fp32, Precision::bf16}) {
    const Args in = make_inputs(t, s, p, 1);
    const double want = make_expected(t, s, p, in)[0].data[0];
    double block = 0;
    for (std::size_t i = 768; i < 1024; ++i) block += (in[1].data[i] - in[2].data[i]) * (in[1].data[i] - in[2].data[i]);
    EXPECT_FALSE(within(t.tolerance(s, p), block / 1024.0, want));
    EXPECT_TRUE(within(t.tolerance(s, p), static_cast<double>(static_cast<float>(want)), want));
    EXPECT_GT(want, 0.4);  // ~2/3 for U(-1, 1) inputs
  }
}

// X and Y are counter draws (set_uniform_inputs: large instances are drawn and checked on the GPU),
// uniform in [-1, 1) from independent keys: squared differences in [0, 4] with mean 2/3, which the
// tolerance's comment assumes.
TEST(MseLoss, InputsAreIndependentUniformDraws) {
  const TaskSpec& t = get_task("MSE_loss");
  ASSERT_TRUE(t.uniform_inputs);
  const Shape s{{"N", 65536}};
  for (Precision p : {Precision::fp32, Precision::bf16}) {
    const Args in = make_inputs(t, s, p, 3);
    for (std::size_t i : {std::size_t{1}, std::size_t{2}}) mskb_test::expect_fills_uniform_range(t, in, i, -1.0, 1.0);
    EXPECT_NEAR(make_expected(t, s, p, in)[0].data[0], 2.0 / 3.0, 0.02);  // 0 if X and Y were the same draw
  }
}

}  // namespace
