// Hand-checked cases for the sigmoid FP64 reference.
#define TASK "sigmoid"
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


TEST(Sigmoid, HandComputed) {
  const std::vector<double> y = ref({0.0, 1.0, -1.0, 100.0, -100.0});
  EXPECT_EQ(y[0], 0.5);
  EXPECT_NEAR(y[1], 0.7310585786300049, 1e-15);
  EXPECT_NEAR(y[2], 0.2689414213699951, 1e-15);
  EXPECT_EQ(y[3], 1.0);
  EXPECT_NEAR(y[4] / 3.7200759760208361e-44, 1.0, 1e-12);
}

TEST(Sigmoid, InputsReachWhereExpOverflows) {
  const TaskSpec& t = get_task(TASK);
  const Args in = make_inputs(t, Shape{{"N", 1 << 14}}, Precision::bf16, 1);
  int over = 0, under = 0;
  for (double x : in[1].data) {
    over += x > 88.8;
    under += x < -88.8;
  }
  EXPECT_GT(over, 10);
  EXPECT_GT(under, 10);
  // A flushed-to-zero result for x = -100 is fine; NaN never is (checked by the harness).
  EXPECT_TRUE(within(t.tolerance(Shape{{"N", 1}}, Precision::fp32), 0.0, ref({-100.0})[0]));
}

}  // namespace
