// Hand-checked cases for the silu_and_mul FP64 reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

std::vector<double> ref(const std::vector<double>& in, int64_t b, int64_t d, Precision p = Precision::fp32) {
  const TaskSpec& t = get_task("silu_and_mul");
  Args a(t.params.size());
  a[0].data.assign(in.begin(), in.end());
  a[1].data.assign(static_cast<std::size_t>(b * d), 12345.0);
  a[2].value = static_cast<double>(b);
  a[3].value = static_cast<double>(d);
  t.reference(Shape{{"B", b}, {"D", d}}, p, a);
  return {a[1].data.begin(), a[1].data.end()};
}

double silu(double g) { return g / (1.0 + std::exp(-g)); }

TEST(SiluAndMul, TwoRowsOfThreeColumns) {
  // Row 0: gates {1, 0, -1}, values {2, 3, 4}; row 1: gates {2, 100, -100}, values {-1, 0.5, 1}.
  const std::vector<double> y = ref({1, 0, -1, 2, 3, 4, 2, 100, -100, -1, 0.5, 1}, 2, 3);
  ASSERT_EQ(y.size(), 6u);
  EXPECT_NEAR(y[0], 0.7310585786300049 * 2.0, 1e-15);
  EXPECT_EQ(y[1], 0.0);
  EXPECT_NEAR(y[2], -0.2689414213699951 * 4.0, 1e-15);
  EXPECT_NEAR(y[3], -2.0 * 0.8807970779778823, 1e-15);
  EXPECT_DOUBLE_EQ(y[4], 50.0);
  EXPECT_NEAR(y[5] / (-100.0 * 3.7200759760208361e-44), 1.0, 1e-12);
}

TEST(SiluAndMul, SingleElement) {
  const std::vector<double> y = ref({-0.5, 3.0}, 1, 1, Precision::bf16);
  EXPECT_NEAR(y[0], silu(-0.5) * 3.0, 1e-15);
}

TEST(SiluAndMul, GatesAreTheFirstHalfOfEachRow) {
  const TaskSpec& t = get_task("silu_and_mul");
  const Shape s{{"B", 3}, {"D", 1001}};
  const Args in = make_inputs(t, s, Precision::fp32, 1);
  const Args e = make_expected(t, s, Precision::fp32, in);
  ASSERT_EQ(in[0].data.size(), 3u * 2002u);
  ASSERT_EQ(e[1].data.size(), 3u * 1001u);
  for (std::size_t b = 0; b < 3; ++b)
    for (std::size_t j = 0; j < 1001; j += 250) {
      const double g = in[0].data[b * 2002 + j], v = in[0].data[b * 2002 + 1001 + j];
      EXPECT_DOUBLE_EQ(e[1].data[b * 1001 + j], silu(g) * v);
      EXPECT_LE(std::fabs(v), 2.0);
    }
}

// Gates are activation inputs (outliers beyond |g| = 5, in[0] from [0.5, 5)), values U(-2, 2): the
// row_halves counter draw split at D in every row.
TEST(SiluAndMul, GatesHaveOutliersValuesStayInTheirRange) {
  const TaskSpec& t = get_task("silu_and_mul");
  const int64_t b = 16, d = 4097;
  const Args in = make_inputs(t, Shape{{"B", b}, {"D", d}}, Precision::fp32, 3);
  int outliers = 0;
  double widest_value = 0;
  for (int64_t r = 0; r < b; ++r)
    for (int64_t j = 0; j < d; ++j) {
      const double g = in[0].data[static_cast<std::size_t>(r * 2 * d + j)], v = in[0].data[static_cast<std::size_t>(r * 2 * d + d + j)];
      ASSERT_LE(std::fabs(g), 100.0);
      outliers += std::fabs(g) > 5.0 ? 1 : 0;
      widest_value = std::max(widest_value, std::fabs(v));
    }
  // One in 16 gates is drawn from U(-100, 100): 95% of those lie beyond 5 (about 3900 of 65552).
  EXPECT_GT(outliers, 3000);
  EXPECT_LT(outliers, 5000);
  EXPECT_LE(widest_value, 2.0);
  EXPECT_GT(widest_value, 1.9);
  EXPECT_GE(in[0].data[0], 0.5);
  EXPECT_LT(in[0].data[0], 5.0);
}

TEST(SiluAndMul, PaperSweepIsTwelveShapes) {
  const TaskSpec& t = get_task("silu_and_mul");
  EXPECT_EQ(t.paper.size(), 12u);
  EXPECT_EQ(t.complexity(Shape{{"B", 64}, {"D", 12288}}), 64u * 12288u);
}

}  // namespace
