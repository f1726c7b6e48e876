// Hand-checked cases for the SwiGLU FP64 reference.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

std::vector<double> ref(const std::vector<double>& g, const std::vector<double>& v, double beta,
                        Precision p = Precision::fp32) {
  const TaskSpec& t = get_task("SwiGLU");
  Args a(t.params.size());
  a[0].data.assign(g.size(), 12345.0);
  a[1].data.assign(g.begin(), g.end());
  a[2].data.assign(v.begin(), v.end());
  a[3].value = beta;
  a[4].value = static_cast<double>(g.size());
  t.reference(Shape{{"N", static_cast<int64_t>(g.size())}}, p, a);
  return {a[0].data.begin(), a[0].data.end()};
}

TEST(SwiGLU, HandComputed) {
  const std::vector<double> y = ref({1.0, 0.0, -1.0, 100.0, -100.0}, {2.0, 5.0, 3.0, -0.5, 1.0}, 1.0);
  EXPECT_NEAR(y[0], 2.0 * 0.7310585786300049, 1e-15);   // 1 * sigmoid(1) * 2
  EXPECT_EQ(y[1], 0.0);                                 // silu(0) = 0
  EXPECT_NEAR(y[2], -3.0 * 0.2689414213699951, 1e-15);  // -1 * sigmoid(-1) * 3
  EXPECT_DOUBLE_EQ(y[3], -50.0);                        // saturated gate passes g through
  EXPECT_NEAR(y[4] / (-100.0 * 3.7200759760208361e-44), 1.0, 1e-12);  // finite, tiny, negative
}

TEST(SwiGLU, BetaScalesTheSigmoidArgumentOnly) {
  const std::vector<double> y = ref({1.0, -2.0}, {1.0, 1.0}, 2.0, Precision::bf16);
  EXPECT_NEAR(y[0], 0.8807970779778823, 1e-15);        // 1 * sigmoid(2)
  EXPECT_NEAR(y[1], -2.0 * 0.01798620996209156, 1e-15);  // -2 * sigmoid(-4)
}

TEST(SwiGLU, GeneratedGatesHaveOverflowingOutliersAndBetaIsOne) {
  const TaskSpec& t = get_task("SwiGLU");
  const Args in = make_inputs(t, Shape{{"N", 1 << 14}}, Precision::fp32, 2);
  EXPECT_EQ(in[3].value, 1.0);
  int over = 0;
  for (double g : in[1].data) over += g > 88.8;
  EXPECT_GT(over, 10);
  for (double v : in[2].data) EXPECT_LE(std::fabs(v), 2.0);
}

}  // namespace
