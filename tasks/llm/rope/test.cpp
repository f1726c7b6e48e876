// Hand-checked cases for the rope FP64 reference.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

std::vector<double> run(int64_t m, int64_t d, const std::vector<double>& x, double base) {
  const TaskSpec& t = get_task("rope");
  Args a(t.params.size());
  a[0].data.assign(x.size(), 0.0);
  a[1].data.assign(x.begin(), x.end());
  a[2].value = static_cast<double>(m);
  a[3].value = static_cast<double>(d);
  a[4].value = base;
  t.reference(Shape{{"M", m}, {"D", d}}, Precision::fp32, a);
  return {a[0].data.begin(), a[0].data.end()};
}

TEST(Rope, PositionZeroIsIdentity) {
  const auto y = run(1, 4, {0.5, -0.25, 1.0, 2.0}, 1e4);
  EXPECT_DOUBLE_EQ(y[0], 0.5);
  EXPECT_DOUBLE_EQ(y[1], -0.25);
  EXPECT_DOUBLE_EQ(y[2], 1.0);
  EXPECT_DOUBLE_EQ(y[3], 2.0);
}

TEST(Rope, PairAnglesFollowPositionAndFrequency) {
  // D = 4, base = 16: pair 0 rotates by m * 1, pair 1 by m * 16^(-1/2) = m / 4. Row 1 = (1, 0, 1, 0),
  // row 2 = (0, 1, 0, 1): a rotation of (1, 0) is (cos, sin); of (0, 1) is (-sin, cos).
  const auto y = run(3, 4, {9, 9, 9, 9, 1, 0, 1, 0, 0, 1, 0, 1}, 16.0);
  EXPECT_NEAR(y[4], std::cos(1.0), 1e-15);
  EXPECT_NEAR(y[5], std::sin(1.0), 1e-15);
  EXPECT_NEAR(y[6], std::cos(0.25), 1e-15);
  EXPECT_NEAR(y[7], std::sin(0.25), 1e-15);
  EXPECT_NEAR(y[8], -std::sin(2.0), 1e-15);
  EXPECT_NEAR(y[9], std::cos(2.0), 1e-15);
  EXPECT_NEAR(y[10], -std::sin(0.5), 1e-15);
  EXPECT_NEAR(y[11], std::cos(0.5), 1e-15);
  EXPECT_DOUBLE_EQ(y[0], 9.0);  // row 0 unchanged
}

TEST(Rope, SinglePairRotatesByThePosition) {
  // D = 2: the only pair has frequency base^0 = 1, so row 1 rotates (3, 4) by one radian; norm kept.
  const auto y = run(2, 2, {0, 0, 3, 4}, 1e4);
  EXPECT_NEAR(y[2], 3 * std::cos(1.0) - 4 * std::sin(1.0), 1e-15);
  EXPECT_NEAR(y[3], 3 * std::sin(1.0) + 4 * std::cos(1.0), 1e-15);
  EXPECT_NEAR(y[2] * y[2] + y[3] * y[3], 25.0, 1e-12);
}

TEST(Rope, ToleranceGrowsWithThePositionRange) {
  const TaskSpec& t = get_task("rope");
  const Tolerance a = t.tolerance(Shape{{"M", 16}, {"D", 256}}, Precision::fp32);
  const Tolerance b = t.tolerance(Shape{{"M", 4096}, {"D", 65536}}, Precision::fp32);
  EXPECT_LT(a.atol, 1e-5);
  EXPECT_GT(b.atol, a.atol);
}

}  // namespace
