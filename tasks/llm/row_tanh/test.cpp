// Hand-checked cases for the row_tanh FP64 reference.
#define TASK "row_tanh"
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


TEST(RowTanh, HandComputed) {
  const std::vector<double> y = ref({0.0, 0.5, 1.0, -1.0, 100.0, -100.0, 1e-8});
  EXPECT_EQ(y[0], 0.0);
  EXPECT_NEAR(y[1], 0.46211715726000974, 1e-15);
  EXPECT_NEAR(y[2], 0.7615941559557649, 1e-15);
  EXPECT_NEAR(y[3], -0.7615941559557649, 1e-15);
  EXPECT_EQ(y[4], 1.0);
  EXPECT_EQ(y[5], -1.0);
  EXPECT_NEAR(y[6], 1e-8, 1e-22);
}

TEST(RowTanh, ElementwiseWithNoRowStructure) {
  const std::vector<double> a = ref({0.25, -2.0, 3.0}, {}, Precision::bf16);
  EXPECT_NEAR(a[0], std::tanh(0.25), 1e-15);
  EXPECT_NEAR(a[1], std::tanh(-2.0), 1e-15);
  EXPECT_NEAR(a[2], std::tanh(3.0), 1e-15);
}

}  // namespace
