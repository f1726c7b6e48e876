// Hand-checked cases for the hinge_loss FP64 reference.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

std::vector<double> ref(const std::vector<double>& p, const std::vector<double>& t, Precision prec = Precision::fp32) {
  const TaskSpec& task = get_task("hinge_loss");
  Args a(task.params.size());
  a[0].data.assign(p.size(), 12345.0);
  a[1].data.assign(p.begin(), p.end());
  a[2].data.assign(t.begin(), t.end());
  a[3].value = static_cast<double>(p.size());
  task.reference(Shape{{"N", static_cast<int64_t>(p.size())}}, prec, a);
  return {a[0].data.begin(), a[0].data.end()};
}

TEST(HingeLoss, PerElementWithPlusMinusOneLabels) {
  // target 1 -> y = +1; target 0 -> y = -1.
  const std::vector<double> y = ref({0.5, 0.5, 2.0, -2.0, 1.0, -1.0, 0.0}, {1, 0, 1, 0, 1, 0, 1});
  const std::vector<double> want = {0.5, 1.5, 0.0, 0.0, 0.0, 0.0, 1.0};
  ASSERT_EQ(y.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_DOUBLE_EQ(y[i], want[i]) << i;
}

TEST(HingeLoss, SingleElement) {
  EXPECT_DOUBLE_EQ(ref({-1.5}, {1}, Precision::bf16)[0], 2.5);
  EXPECT_DOUBLE_EQ(ref({1.5}, {0}, Precision::bf16)[0], 2.5);
}

TEST(HingeLoss, GeneratedInputs) {
  const TaskSpec& t = get_task("hinge_loss");
  EXPECT_EQ(t.params[2].elem, Elem::i32);
  const Args in = make_inputs(t, Shape{{"N", 4096}}, Precision::fp32, 1);
  int ones = 0, zeros = 0;
  for (double v : in[2].data) {
    ones += v == 1.0;
    zeros += v == 0.0;
  }
  EXPECT_EQ(ones + zeros, 4096);
  EXPECT_GT(ones, 1500);
  EXPECT_GT(zeros, 1500);
  for (double p : in[1].data) {
    EXPECT_GE(p, -2.0);
    EXPECT_LT(p, 2.0);
  }
  const Args e = make_expected(t, Shape{{"N", 4096}}, Precision::fp32, in);
  int positive = 0;
  for (double v : e[0].data) positive += v > 0.0;
  EXPECT_GT(positive, 2500);  // about 3/4 of the elements have a nonzero loss
  EXPECT_LT(positive, 3600);
}

// The first prediction is drawn from U(-0.9, 0.9): with either label its loss is positive, so an
// instance of one element checks a nonzero result.
TEST(HingeLoss, OneElementHasAPositiveLoss) {
  const TaskSpec& t = get_task("hinge_loss");
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const Args in = make_inputs(t, Shape{{"N", 1}}, Precision::bf16, seed);
    EXPECT_GT(in[1].data[0], -0.9) << seed;
    EXPECT_LT(in[1].data[0], 0.9) << seed;
    EXPECT_GT(make_expected(t, Shape{{"N", 1}}, Precision::bf16, in)[0].data[0], 0.0) << seed;
  }
}

}  // namespace
