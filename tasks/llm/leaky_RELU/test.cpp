// Hand-checked cases for the leaky_RELU FP64 reference.
#define TASK "leaky_RELU"
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


TEST(LeakyRelu, HandComputed) {
  const std::vector<double> y = ref({-2.0, 0.0, 3.0, -100.0, 1e-3}, {0.01});
  EXPECT_DOUBLE_EQ(y[0], -0.02);
  EXPECT_EQ(y[1], 0.0);
  EXPECT_EQ(y[2], 3.0);
  EXPECT_DOUBLE_EQ(y[3], -1.0);
  EXPECT_EQ(y[4], 1e-3);
}

TEST(LeakyRelu, UsesTheAlphaArgument) {
  const std::vector<double> y = ref({-4.0, 4.0}, {0.25}, Precision::bf16);
  EXPECT_EQ(y[0], -1.0);
  EXPECT_EQ(y[1], 4.0);
}

TEST(LeakyRelu, AlphaIsTheFloatRoundedDefault) {
  const TaskSpec& t = get_task(TASK);
  const Args in = make_inputs(t, Shape{{"N", 1024}}, Precision::fp32, 1);
  EXPECT_EQ(in[3].value, static_cast<double>(0.01f));
  const Args e = make_expected(t, Shape{{"N", 1024}}, Precision::fp32, in);
  for (std::size_t i = 0; i < 1024; ++i) {
    const double x = in[1].data[i];
    EXPECT_EQ(e[0].data[i], x > 0 ? x : static_cast<double>(0.01f) * x);
  }
}

}  // namespace
