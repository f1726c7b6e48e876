// Hand-checked cases for the dot_product FP64 reference.
#include <gtest/gtest.h>

#include <cmath>

#include "mskb/instance.hpp"
#include "mskb/registry.hpp"

using namespace mskb;

namespace {

Args args_for(const std::vector<double>& x, const std::vector<double>& y) {
  const TaskSpec& t = get_task("dot_product");
  Args a(t.params.size());
  a[0].data = {0.0};
  a[1].data = x;
  a[2].data = y;
  a[3].value = static_cast<double>(x.size());
  return a;
}

TEST(DotProduct, SmallHandComputed) {
  const TaskSpec& t = get_task("dot_product");
  Args a = args_for({1, 2, 3}, {4, -5, 6});
  t.reference(Shape{{"N", 3}}, Precision::fp32, a);
  EXPECT_DOUBLE_EQ(a[0].data[0], 4.0 - 10.0 + 18.0);
}

TEST(DotProduct, SingleElement) {
  const TaskSpec& t = get_task("dot_product");
  Args a = args_for({-0.5}, {0.25});
  t.reference(Shape{{"N", 1}}, Precision::bf16, a);
  EXPECT_DOUBLE_EQ(a[0].data[0], -0.125);
}

TEST(DotProduct, SpansSeveralChunks) {
  // 200000 elements cross the reference's 65536-element chunks: sum of i * 1 for i < n.
  const TaskSpec& t = get_task("dot_product");
  const std::size_t n = 200000;
  std::vector<double> x(n), y(n, 1.0);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<double>(i % 7) - 3.0;  // -3..3, exact
  Args a = args_for(x, y);
  t.reference(Shape{{"N", static_cast<int64_t>(n)}}, Precision::fp32, a);
  double want = 0;
  for (double v : x) want += v;
  EXPECT_DOUBLE_EQ(a[0].data[0], want);
}

TEST(DotProduct, LossIsFloatInBothPrecisions) {
  const TaskSpec& t = get_task("dot_product");
  EXPECT_EQ(t.params[0].elem, Elem::f32);
  EXPECT_EQ(t.params[0].role, Role::accumulate);
  EXPECT_NE(t.signature(Precision::bf16).find("float* loss"), std::string::npos) << t.signature(Precision::bf16);
}

TEST(DotProduct, ToleranceScalesWithSqrtN) {
  const TaskSpec& t = get_task("dot_product");
  const Tolerance a = t.tolerance(Shape{{"N", 1 << 16}}, Precision::fp32);
  const Tolerance b = t.tolerance(Shape{{"N", 1 << 20}}, Precision::fp32);
  EXPECT_NEAR(b.atol / a.atol, 4.0, 1e-12);
}

TEST(DotProduct, GeneratedInstanceMatchesDirectSum) {
  const TaskSpec& t = get_task("dot_product");
  const Shape s{{"N", 1000}};
  const Args in = make_inputs(t, s, Precision::bf16, 7);
  const Args e = make_expected(t, s, Precision::bf16, in);
  double want = 0;
  for (std::size_t i = 0; i < 1000; ++i) want += in[1].data[i] * in[2].data[i];
  EXPECT_NEAR(e[0].data[0], want, 1e-12);
  EXPECT_EQ(in[1].data[3], round_to(Precision::bf16, in[1].data[3]));  // inputs arrive bf16-rounded
}

}  // namespace
