// Hand-checked cases for the elu FP64 reference.
#define TASK "elu"
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


TEST(Elu, HandComputed) {
  const std::vector<double> y = ref({-1.0, 0.0, 2.0, -100.0, -1e-6}, {1.0});
  EXPECT_DOUBLE_EQ(y[0], -0.63212055882855767);  // e^-1 - 1
  EXPECT_EQ(y[1], 0.0);
  EXPECT_EQ(y[2], 2.0);
  EXPECT_DOUBLE_EQ(y[3], -1.0);
  EXPECT_NEAR(y[4], -9.999995e-7, 1e-18);  // expm1 keeps full relative accuracy near 0
}

TEST(Elu, UsesTheAlphaArgument) {
  const std::vector<double> y = ref({-1.0, 3.0}, {0.5}, Precision::bf16);
  EXPECT_DOUBLE_EQ(y[0], 0.5 * -0.63212055882855767);
  EXPECT_EQ(y[1], 3.0);
}

TEST(Elu, Bf16ExpMinusOneCancellationFails) {
  // What native bf16 math gives for ELU(-0.01): exp rounded to bf16 (0.9921875) minus 1.
  const TaskSpec& t = get_task(TASK);
  const double want = ref({-0.01}, {1.0})[0];
  EXPECT_FALSE(within(t.tolerance(Shape{{"N", 1}}, Precision::bf16), 0.9921875 - 1.0, want));
  EXPECT_TRUE(within(t.tolerance(Shape{{"N", 1}}, Precision::bf16), round_to(Precision::bf16, want), want));
}

}  // namespace
