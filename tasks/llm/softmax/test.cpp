// Hand-checked cases for the softmax FP64 reference (row-wise over an N x C matrix).
#include <gtest/gtest.h>

#include <cmath>

#include "mskb/instance.hpp"
#include "mskb/registry.hpp"

using namespace mskb;

namespace {

std::vector<double> run(int64_t n, int64_t c, const std::vector<double>& x) {
  const TaskSpec& t = get_task("softmax");
  Args a(t.params.size());
  a[0].data.assign(x.size(), 0.0);
  a[1].data = x;
  a[2].value = static_cast<double>(n);
  a[3].value = static_cast<double>(c);
  t.reference(Shape{{"N", n}, {"C", c}}, Precision::fp32, a);
  return a[0].data;
}

TEST(Softmax, UniformRowIsOneOverC) {
  const auto y = run(1, 4, {3, 3, 3, 3});
  for (double v : y) EXPECT_DOUBLE_EQ(v, 0.25);
}

TEST(Softmax, TwoRowsAreIndependent) {
  // Row 0: [0, ln 3] -> [1/4, 3/4]. Row 1: [5, 5 + ln 1] -> [1/2, 1/2].
  const auto y = run(2, 2, {0, std::log(3.0), 5, 5});
  EXPECT_NEAR(y[0], 0.25, 1e-15);
  EXPECT_NEAR(y[1], 0.75, 1e-15);
  EXPECT_NEAR(y[2], 0.5, 1e-15);
  EXPECT_NEAR(y[3], 0.5, 1e-15);
}

TEST(Softmax, SingleColumnIsOne) {
  const auto y = run(3, 1, {-120, 0, 110});
  EXPECT_EQ(y, (std::vector<double>{1, 1, 1}));
}

TEST(Softmax, LargeMagnitudesStayFinite) {
  // exp(1000) overflows even FP64: the reference must subtract the row maximum.
  const auto y = run(1, 3, {1000, 1000 - std::log(2.0), -1000});
  EXPECT_NEAR(y[0], 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(y[1], 1.0 / 3.0, 1e-12);
  EXPECT_GE(y[2], 0.0);
  EXPECT_LT(y[2], 1e-300);
}

TEST(Softmax, ShiftInvariance) {
  const auto a = run(1, 3, {1, 2, 3});
  const auto b = run(1, 3, {101, 102, 103});
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(a[static_cast<std::size_t>(i)], b[static_cast<std::size_t>(i)], 1e-15);
  EXPECT_NEAR(a[0], std::exp(1.0) / (std::exp(1.0) + std::exp(2.0) + std::exp(3.0)), 1e-15);
}

TEST(Softmax, GeneratedRowsSumToOneAndContainOverflowingValues) {
  const TaskSpec& t = get_task("softmax");
  const Shape s{{"N", 8}, {"C", 300}};
  const Args in = make_inputs(t, s, Precision::fp32, 1);
  const Args e = make_expected(t, s, Precision::fp32, in);
  bool overflow_row = false, underflow_row = false;
  for (int64_t r = 0; r < 8; ++r) {
    double sum = 0, mx = -1e300, mn = 1e300;
    for (int64_t j = 0; j < 300; ++j) {
      const auto k = static_cast<std::size_t>(r * 300 + j);
      sum += e[0].data[k];
      mx = std::max(mx, in[1].data[k]);
      mn = std::min(mn, in[1].data[k]);
    }
    EXPECT_NEAR(sum, 1.0, 1e-12) << r;
    overflow_row |= mn > 60.0 && mx > 88.8;  // a row of large values, some of whose exp overflow FP32
    underflow_row |= mx < -88.0;  // exp is below FP32's smallest normal for every element
  }
  EXPECT_TRUE(overflow_row);
  EXPECT_TRUE(underflow_row);
}

}  // namespace
