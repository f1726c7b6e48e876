// Hand-checked cases for the reverse_array reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "mskb/core/instance.hpp"

#include "support/one_cpu.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

Args make(const std::vector<double>& in) {
  Args a(3);
  a[0].data.assign(in.size(), 0.0);
  a[1].data.assign(in.begin(), in.end());
  a[2].value = static_cast<double>(in.size());
  return a;
}

TEST(ReverseArray, OddLengthKeepsTheMiddle) {
  const TaskSpec& t = get_task("reverse_array");
  Args a = make({1.0, -2.5, 3.0, 4.0, 0.5});
  t.reference({{"N", 5}}, Precision::fp32, a);
  EXPECT_EQ(a[0].data, (std::vector<double>{0.5, 4.0, 3.0, -2.5, 1.0}));
  EXPECT_EQ(a[1].data, (std::vector<double>{1.0, -2.5, 3.0, 4.0, 0.5}));  // input untouched
}

TEST(ReverseArray, EvenLengthAndSingleElement) {
  const TaskSpec& t = get_task("reverse_array");
  Args a = make({7.0, 8.0});
  t.reference({{"N", 2}}, Precision::bf16, a);
  EXPECT_EQ(a[0].data, (std::vector<double>{8.0, 7.0}));
  Args b = make({-3.0});
  t.reference({{"N", 1}}, Precision::fp32, b);
  EXPECT_EQ(b[0].data, (std::vector<double>{-3.0}));
}

TEST(ReverseArray, ToleranceIsExact) {
  const TaskSpec& t = get_task("reverse_array");
  for (Precision p : {Precision::fp32, Precision::bf16}) {
    EXPECT_EQ(t.tolerance({{"N", 1024}}, p).atol, 0.0);
    EXPECT_EQ(t.tolerance({{"N", 1024}}, p).rtol, 0.0);
  }
}

// The input is a counter draw (set_uniform_inputs: large instances are drawn and checked on the
// GPU), uniform in [-1, 1): distinct values, so a misplaced element shows.
TEST(ReverseArray, InputIsAUniformDrawOfDistinctValues) {
  const TaskSpec& t = get_task("reverse_array");
  ASSERT_TRUE(t.uniform_inputs);
  EXPECT_EQ(t.uniform_inputs->range[1].lo, -1.0);
  EXPECT_EQ(t.uniform_inputs->range[1].hi, 1.0);
  const Args in = make_inputs(t, {{"N", 4096}}, Precision::fp32, 3);
  std::vector<double> x(in[1].data.begin(), in[1].data.end());
  const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
  EXPECT_GE(*lo, -1.0);
  EXPECT_LT(*lo, -0.99);
  EXPECT_LE(*hi, 1.0);
  EXPECT_GT(*hi, 0.99);
  std::sort(x.begin(), x.end());
  EXPECT_GT(std::unique(x.begin(), x.end()) - x.begin(), 4000);  // FP32 draws: a few collisions at most
  EXPECT_EQ(in[0].data.size(), 4096u);
}

}  // namespace

TEST(ReverseArrayParallel, SameInputsAndReferenceOnOneCpu) {
  // The generator and the FP64 reference split their work over the CPUs (fixed chunks, fixed
  // combining order): a child pinned to one CPU must reproduce them bit for bit.
  const TaskSpec& t = get_task("reverse_array");
  for (const Shape& s : {Shape{{"N", (int64_t{1} << 20) + 3}}}) {
    EXPECT_EQ(differences_on_one_cpu(t, s), 0u) << s.str();
  }
}
