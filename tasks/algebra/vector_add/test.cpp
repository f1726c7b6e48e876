// Hand-checked cases for the vector_add reference and its tolerance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "mskb/core/instance.hpp"
#include "support/one_cpu.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

Args make(const std::vector<double>& a, const std::vector<double>& b) {
  Args x(4);
  x[0].data.assign(a.begin(), a.end());
  x[1].data.assign(b.begin(), b.end());
  x[2].data.assign(a.size(), 0.0);
  x[3].value = static_cast<double>(a.size());
  return x;
}

bool within(const Tolerance& t, double got, double want) { return std::abs(got - want) <= t.atol + t.rtol * std::abs(want); }

TEST(VectorAdd, ElementwiseSumLeavesTheInputs) {
  const TaskSpec& t = get_task("vector_add");
  Args x = make({1.0, -2.5, 0.125, 1e30}, {4.0, 2.5, -0.25, -1e30});
  t.reference({{"N", 4}}, Precision::fp32, x);
  EXPECT_EQ(x[2].data, (std::vector<double>{5.0, 0.0, -0.125, 0.0}));
  EXPECT_EQ(x[0].data, (std::vector<double>{1.0, -2.5, 0.125, 1e30}));
  EXPECT_EQ(x[1].data, (std::vector<double>{4.0, 2.5, -0.25, -1e30}));
  Args one = make({-3.0}, {0.5});
  t.reference({{"N", 1}}, Precision::bf16, one);
  EXPECT_EQ(one[2].data, (std::vector<double>{-2.5}));
}

// The FP32 sum of two FP32 inputs is the exact sum rounded once: within tolerance. A BF16 output
// is the FP32 sum rounded to bf16 (8 bits): within its tolerance; a dropped operand is not.
TEST(VectorAdd, ToleranceAcceptsOneRoundingAndRejectsADroppedOperand) {
  const TaskSpec& t = get_task("vector_add");
  const Shape s{{"N", 1 << 20}};
  const Tolerance f = t.tolerance(s, Precision::fp32), h = t.tolerance(s, Precision::bf16);
  const double a = round_to(Precision::fp32, 0.1), b = round_to(Precision::fp32, 0.7);
  const double exact = a + b;
  EXPECT_TRUE(within(f, static_cast<float>(exact), exact));
  EXPECT_TRUE(within(h, round_to(Precision::bf16, exact), exact));
  EXPECT_FALSE(within(f, a, exact));
  EXPECT_FALSE(within(h, round_to(Precision::bf16, a), exact));
  // Generated inputs: every honest FP32 output of a generated instance is inside the tolerance.
  Args in = make_inputs(t, {{"N", 4096}}, Precision::fp32, 1);
  Args want = in;
  t.reference({{"N", 4096}}, Precision::fp32, want);
  for (std::size_t i = 0; i < 4096; ++i) {
    const float got = static_cast<float>(in[0].data[i]) + static_cast<float>(in[1].data[i]);
    EXPECT_TRUE(within(f, got, want[2].data[i])) << i;
  }
}

// A and B are counter draws (set_uniform_inputs: large instances are drawn and checked on the GPU),
// uniform in [-1, 1), from two independent keys.
TEST(VectorAdd, InputsAreIndependentUniformDraws) {
  const TaskSpec& t = get_task("vector_add");
  ASSERT_TRUE(t.uniform_inputs);
  const Args in = make_inputs(t, {{"N", 4096}}, Precision::fp32, 3);
  for (int i : {0, 1}) {
    EXPECT_EQ(t.uniform_inputs->range[static_cast<std::size_t>(i)].lo, -1.0) << i;
    EXPECT_EQ(t.uniform_inputs->range[static_cast<std::size_t>(i)].hi, 1.0) << i;
    const auto [lo, hi] = std::minmax_element(in[static_cast<std::size_t>(i)].data.begin(), in[static_cast<std::size_t>(i)].data.end());
    EXPECT_GE(*lo, -1.0);
    EXPECT_LT(*lo, -0.99);
    EXPECT_LE(*hi, 1.0);
    EXPECT_GT(*hi, 0.99);
  }
  EXPECT_NE(in[0].data, in[1].data);
  EXPECT_EQ(in[2].data.size(), 4096u);
}

}  // namespace

TEST(VectorAddParallel, SameInputsAndReferenceOnOneCpu) {
  // The generator and the FP64 reference split their work over the CPUs (fixed chunks, fixed
  // combining order): a child pinned to one CPU must reproduce them bit for bit.
  const TaskSpec& t = get_task("vector_add");
  for (const Shape& s : {Shape{{"N", (int64_t{1} << 20) + 3}}}) {
    EXPECT_EQ(differences_on_one_cpu(t, s), 0u) << s.str();
  }
}
