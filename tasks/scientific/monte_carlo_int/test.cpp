// Hand-checked cases for the monte_carlo_int FP64 reference and generator.
#include <gtest/gtest.h>

#include <cmath>

#include "mskb/instance.hpp"
#include "mskb/registry.hpp"

using namespace mskb;

namespace {

Args args_for(const std::vector<double>& y, double a, double b) {
  Args x(5);
  x[0].data = y;
  x[1].data = {0.0};
  x[2].value = a;
  x[3].value = b;
  x[4].value = static_cast<double>(y.size());
  return x;
}

TEST(MonteCarloIntReference, WidthTimesMean) {
  const TaskSpec& t = get_task("monte_carlo_int");
  Args a = args_for({1, 2, 3, 4}, 0.0, 2.0);
  t.reference(Shape{{"N", 4}}, Precision::fp32, a);
  EXPECT_DOUBLE_EQ(a[1].data[0], 2.0 * 10.0 / 4.0);
}

TEST(MonteCarloIntReference, SingleSampleAndNegativeInterval) {
  const TaskSpec& t = get_task("monte_carlo_int");
  Args a = args_for({-3.0}, -1.0, 1.0);
  t.reference(Shape{{"N", 1}}, Precision::bf16, a);
  EXPECT_DOUBLE_EQ(a[1].data[0], -6.0);
  Args b = args_for({0.5, -0.25, 1.0}, -750.0, -600.0);  // mean 0.41666..., width 150
  t.reference(Shape{{"N", 3}}, Precision::fp32, b);
  EXPECT_NEAR(b[1].data[0], 150.0 * 1.25 / 3.0, 1e-12);
}

TEST(MonteCarloIntReference, AddsToTheResult) {
  // Accumulate semantics: result += (b - a) * mean(y).
  const TaskSpec& t = get_task("monte_carlo_int");
  Args a = args_for({2.0, 4.0}, 1.0, 4.0);
  a[1].data[0] = 10.0;
  t.reference(Shape{{"N", 2}}, Precision::fp32, a);
  EXPECT_DOUBLE_EQ(a[1].data[0], 10.0 + 3.0 * 3.0);
}

TEST(MonteCarloIntReference, ConstantSamplesIntegrateExactly) {
  const TaskSpec& t = get_task("monte_carlo_int");
  Args a = args_for(std::vector<double>(1000, 7.5), -2.0, 6.0);
  t.reference(Shape{{"N", 1000}}, Precision::fp32, a);
  EXPECT_NEAR(a[1].data[0], 60.0, 1e-9);
}

TEST(MonteCarloIntGenerator, IntervalAndSamplesInRange) {
  const TaskSpec& t = get_task("monte_carlo_int");
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const Args a = make_inputs(t, Shape{{"N", 4096}}, Precision::fp32, seed);
    EXPECT_LT(a[2].value, a[3].value);
    EXPECT_GE(a[3].value - a[2].value, 1.0);
    EXPECT_GE(a[2].value, -1000.0);
    EXPECT_LE(a[3].value, 1000.0);
    for (double v : a[0].data) {
      ASSERT_GE(v, -10.0);
      ASSERT_LE(v, 10.0);
    }
    EXPECT_EQ(a[1].data.size(), 1u);
    EXPECT_EQ(a[4].value, 4096.0);
  }
}

TEST(MonteCarloIntTolerance, RejectsAHalfPercentErrorAcceptsFp32Rounding) {
  const TaskSpec& t = get_task("monte_carlo_int");
  for (int64_t n : {int64_t{1} << 14, int64_t{1} << 22}) {
    const Shape s{{"N", n}};
    const Args in = make_inputs(t, s, Precision::fp32, 3);
    const Args ref = make_expected(t, s, Precision::fp32, in);
    const double want = ref[1].data[0];
    const Tolerance tol = t.tolerance(s, Precision::fp32);
    const double bound = tol.atol + tol.rtol * std::fabs(want);
    EXPECT_LT(bound, 0.005 * std::fabs(want)) << n;
    EXPECT_GT(bound, std::fabs(want) * 1e-6) << n;  // room for FP32 summation order
  }
}

}  // namespace
