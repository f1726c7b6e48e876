// Hand-checked cases for the selu FP64 reference.
#define TASK "selu"
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


TEST(Selu, HandComputedWithThePublishedConstants) {
  const std::vector<double> y = ref({-1.0, 0.0, 2.0, -100.0}, {1.67, 1.0});
  EXPECT_DOUBLE_EQ(y[0], 1.67 * -0.63212055882855767);
  EXPECT_EQ(y[1], 0.0);
  EXPECT_EQ(y[2], 2.0);
  EXPECT_DOUBLE_EQ(y[3], -1.67);
}

TEST(Selu, LambdaScalesBothBranches) {
  const std::vector<double> y = ref({-1.0, 2.0}, {1.0, 2.0}, Precision::bf16);
  EXPECT_DOUBLE_EQ(y[0], 2.0 * -0.63212055882855767);
  EXPECT_EQ(y[1], 4.0);
}

TEST(Selu, StandardConstantsFail) {
  const TaskSpec& t = get_task(TASK);
  const Args in = make_inputs(t, Shape{{"N", 1024}}, Precision::fp32, 1);
  EXPECT_EQ(in[3].value, static_cast<double>(1.67f));
  EXPECT_EQ(in[4].value, 1.0);
  const double want = ref({2.0}, {in[3].value, in[4].value})[0];
  for (Precision p : {Precision::fp32, Precision::bf16})
    EXPECT_FALSE(within(t.tolerance(Shape{{"N", 1}}, p), 1.0507009873554805 * 2.0, want));
}

}  // namespace
