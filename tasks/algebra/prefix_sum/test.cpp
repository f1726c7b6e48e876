// Hand-checked cases for the prefix_sum reference (inclusive) and its tolerance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "mskb/core/instance.hpp"
#include "support/one_cpu.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

Args run(const std::vector<double>& in) {
  const TaskSpec& t = get_task("prefix_sum");
  Args a(3);
  a[0].data.assign(in.size(), 0.0);
  a[1].data.assign(in.begin(), in.end());
  a[2].value = static_cast<double>(in.size());
  t.reference({{"N", static_cast<int64_t>(in.size())}}, Precision::fp32, a);
  return a;
}

bool passes(const Tolerance& tol, double got, double want) { return std::abs(got - want) <= tol.atol + tol.rtol * std::abs(want); }

TEST(PrefixSum, InclusiveNotExclusive) {
  EXPECT_EQ(run({1, 2, 3, 4})[0].data, (std::vector<double>{1, 3, 6, 10}));
  EXPECT_EQ(run({0.5, -0.25, 0.125})[0].data, (std::vector<double>{0.5, 0.25, 0.375}));
}

TEST(PrefixSum, SingleElementIsCopied) { EXPECT_EQ(run({0.75})[0].data, (std::vector<double>{0.75})); }

TEST(PrefixSum, SequentialFp32PassesAndADroppedElementFails) {
  // A fully sequential FP32 scan (the worst summation order) passes at the largest paper size; the
  // same scan missing one element early on fails.
  const TaskSpec& t = get_task("prefix_sum");
  const Shape s{{"N", 1 << 18}};
  const Args in = make_inputs(t, s, Precision::fp32, 2);
  const Args ref = make_expected(t, s, Precision::fp32, in);
  const Tolerance tol = t.tolerance(s, Precision::fp32);
  float acc = 0.0f, dropped = 0.0f;
  bool all_ok = true, drop_detected = false;
  for (std::size_t i = 0; i < in[1].data.size(); ++i) {
    acc += static_cast<float>(in[1].data[i]);
    if (i != 100) dropped += static_cast<float>(in[1].data[i]);
    all_ok &= passes(tol, acc, ref[0].data[i]);
    drop_detected |= !passes(tol, dropped, ref[0].data[i]);
  }
  EXPECT_TRUE(all_ok);
  EXPECT_TRUE(drop_detected);
}

TEST(PrefixSum, Bf16ToleranceAllowsOneRoundingOfAnFp32Sum) {
  const TaskSpec& t = get_task("prefix_sum");
  const Shape s{{"N", 4096}};
  const Args in = make_inputs(t, s, Precision::bf16, 1);
  const Args ref = make_expected(t, s, Precision::bf16, in);
  const Tolerance tol = t.tolerance(s, Precision::bf16);
  float acc = 0.0f;
  double acc_bf16 = 0.0;  // carrying the running sum in bf16 stalls once ulp(sum)/2 exceeds the terms
  bool all_ok = true, bf16_carry_detected = false;
  for (std::size_t i = 0; i < in[1].data.size(); ++i) {
    acc += static_cast<float>(in[1].data[i]);
    acc_bf16 = round_to(Precision::bf16, acc_bf16 + in[1].data[i]);
    all_ok &= passes(tol, round_to(Precision::bf16, acc), ref[0].data[i]);
    bf16_carry_detected |= !passes(tol, acc_bf16, ref[0].data[i]);
  }
  EXPECT_TRUE(all_ok);
  EXPECT_TRUE(bf16_carry_detected);
}

TEST(PrefixSum, ToleranceGrowsWithN) {
  const TaskSpec& t = get_task("prefix_sum");
  EXPECT_EQ(t.tolerance({{"N", 1024}}, Precision::fp32).rtol, 1e-5);
  EXPECT_GT(t.tolerance({{"N", 1 << 28}}, Precision::fp32).rtol, t.tolerance({{"N", 1 << 18}}, Precision::fp32).rtol);
  EXPECT_LT(t.tolerance({{"N", 1 << 28}}, Precision::fp32).rtol, 3e-3);
}

// The input is a counter draw (set_uniform_inputs: large instances are drawn and checked on the
// GPU), uniform in [0, 1): never negative, so every prefix is positive and the relative tolerance
// applies to all of them.
TEST(PrefixSum, InputIsAUniformDrawInZeroOne) {
  const TaskSpec& t = get_task("prefix_sum");
  ASSERT_TRUE(t.uniform_inputs);
  EXPECT_EQ(t.uniform_inputs->range[1].lo, 0.0);
  EXPECT_EQ(t.uniform_inputs->range[1].hi, 1.0);
  for (Precision p : {Precision::fp32, Precision::bf16}) {
    const Args in = make_inputs(t, {{"N", 4096}}, p, 3);
    const auto [lo, hi] = std::minmax_element(in[1].data.begin(), in[1].data.end());
    EXPECT_GE(*lo, 0.0);
    EXPECT_LT(*lo, 0.01);
    EXPECT_LE(*hi, 1.0);
    EXPECT_GT(*hi, 0.99);
    const Args e = make_expected(t, {{"N", 4096}}, p, in);
    EXPECT_NEAR(e[0].data.back(), 2048.0, 200.0);  // the mean is 1/2
  }
}

}  // namespace

TEST(PrefixSumParallel, SameInputsAndReferenceOnOneCpu) {
  // The generator and the FP64 reference split their work over the CPUs (fixed chunks, fixed
  // combining order): a child pinned to one CPU must reproduce them bit for bit.
  const TaskSpec& t = get_task("prefix_sum");
  for (const Shape& s : {Shape{{"N", (int64_t{1} << 20) + 3}}}) {
    EXPECT_EQ(differences_on_one_cpu(t, s), 0u) << s.str();
  }
}

TEST(PrefixSumParallel, MatchesASequentialFp64Scan) {
  const TaskSpec& t = get_task("prefix_sum");
  const Shape s{{"N", (int64_t{1} << 20) + 3}};
  const Args in = make_inputs(t, s, Precision::fp32, 5);
  const Args e = make_expected(t, s, Precision::fp32, in);
  double acc = 0;
  for (std::size_t i = 0; i < in[1].data.size(); ++i) {
    acc += in[1].data[i];
    ASSERT_NEAR(e[0].data[i], acc, 1e-12 * acc) << i;
  }
}
