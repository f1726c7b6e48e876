// Hand-checked cases for the RELU FP64 reference.
#include <gtest/gtest.h>

#include <cmath>

#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

Args run_reference(const std::vector<double>& x, Precision p = Precision::fp32) {
  const TaskSpec& t = get_task("RELU");
  Args a(t.params.size());
  a[0].data.assign(x.size(), -7.0);  // stale values must be overwritten
  a[1].data.assign(x.begin(), x.end());
  a[2].value = static_cast<double>(x.size());
  t.reference(Shape{{"N", static_cast<int64_t>(x.size())}}, p, a);
  return a;
}

TEST(Relu, HandComputed) {
  const Args a = run_reference({-2.5, -0.0, 0.0, 1e-30, 3.0, -1e30, 1e30});
  const std::vector<double> want = {0.0, 0.0, 0.0, 1e-30, 3.0, 0.0, 1e30};
  ASSERT_EQ(a[0].data.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(a[0].data[i], want[i]) << i;
}

TEST(Relu, SingleElement) {
  EXPECT_EQ(run_reference({-1.0}, Precision::bf16)[0].data[0], 0.0);
  EXPECT_EQ(run_reference({0.75}, Precision::bf16)[0].data[0], 0.75);
}

TEST(Relu, ToleranceIsExact) {
  const TaskSpec& t = get_task("RELU");
  for (Precision p : {Precision::fp32, Precision::bf16}) {
    const Tolerance tol = t.tolerance(Shape{{"N", 1024}}, p);
    EXPECT_EQ(tol.atol, 0.0);
    EXPECT_EQ(tol.rtol, 0.0);
  }
}

TEST(Relu, GeneratedInputsHaveBothSignsAndLargeMagnitudes) {
  const TaskSpec& t = get_task("RELU");
  const Shape s{{"N", 4096}};
  const Args in = make_inputs(t, s, Precision::bf16, 3);
  int neg = 0, pos = 0, large = 0;
  for (double x : in[1].data) {
    neg += x < 0;
    pos += x > 0;
    large += std::fabs(x) > 20.0;
    EXPECT_EQ(x, round_to(Precision::bf16, x));
  }
  EXPECT_GT(neg, 1000);
  EXPECT_GT(pos, 1000);
  EXPECT_GT(large, 50);
  const Args e = make_expected(t, s, Precision::bf16, in);
  for (std::size_t i = 0; i < 4096; ++i) EXPECT_EQ(e[0].data[i], std::max(in[1].data[i], 0.0));
}

}  // namespace
