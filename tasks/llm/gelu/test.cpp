// Hand-checked cases for the gelu FP64 reference.
#define TASK "gelu"
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

// Runs the task's reference on explicit inputs: params are (output, input, N, scalars...).
std::vector<double> ref(const std::vector<double>& x, const std::vector<double>& scalars = {},
                        Precision p = Precision::fp32) {
  const TaskSpec& t = get_task(TASK);
  Args a(t.params.size());
  a[0].data.assign(x.size(), 12345.0);  // stale values must be overwritten
  a[1].data.assign(x.begin(), x.end());
  a[2].value = static_cast<double>(x.size());
  for (std::size_t k = 0; k < scalars.size(); ++k) a[3 + k].value = scalars[k];
  t.reference(Shape{{"N", static_cast<int64_t>(x.size())}}, p, a);
  return {a[0].data.begin(), a[0].data.end()};
}

[[maybe_unused]] bool within(const Tolerance& tol, double got, double want) {
  return std::fabs(got - want) <= tol.atol + tol.rtol * std::fabs(want);
}


double gelu_tanh(double x) { return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }

TEST(Gelu, HandComputed) {
  const std::vector<double> y = ref({0.0, 1.0, -1.0, 3.0, -5.0, 100.0, -100.0});
  EXPECT_EQ(y[0], 0.0);
  EXPECT_NEAR(y[1], 0.8413447460685429, 1e-15);
  EXPECT_NEAR(y[2], -0.15865525393145707, 1e-15);
  EXPECT_NEAR(y[3], 2.99595030590511, 1e-14);
  EXPECT_NEAR(y[4] / -1.4332578593959731e-06, 1.0, 1e-12);  // 2.5 * erfc(5 / sqrt 2): no 1 + erf cancellation
  EXPECT_EQ(y[5], 100.0);
  EXPECT_LE(y[6], 0.0);
  EXPECT_GT(y[6], -1e-300);
}

TEST(Gelu, TanhApproximationFailsBothPrecisions) {
  const TaskSpec& t = get_task(TASK);
  for (Precision p : {Precision::fp32, Precision::bf16}) {
    const Tolerance tol = t.tolerance(Shape{{"N", 1024}}, p);
    int rejected = 0;
    for (double x : {-3.0, -2.75, -2.5, -1.0, 1.0}) {
      const double want = ref({x}, {}, p)[0];
      EXPECT_TRUE(within(tol, round_to(p, want), want)) << x;
      rejected += !within(tol, round_to(p, gelu_tanh(x)), want);
    }
    EXPECT_GE(rejected, p == Precision::fp32 ? 5 : 2) << to_string(p);
  }
}

}  // namespace
