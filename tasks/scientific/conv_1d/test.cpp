// Hand-checked cases for the conv_1d FP64 reference (valid cross-correlation, no flip).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

std::vector<double> correlate(const std::vector<double>& in, const std::vector<double>& k) {
  const TaskSpec& t = get_task("conv_1d");
  Args a(5);
  a[0].data.assign(in.begin(), in.end());
  a[1].data.assign(k.begin(), k.end());
  a[2].data.assign(in.size() - k.size() + 1, 0.0);
  a[3].value = static_cast<double>(in.size());
  a[4].value = static_cast<double>(k.size());
  t.reference(Shape{{"input_size", static_cast<int64_t>(in.size())}, {"kernel_size", static_cast<int64_t>(k.size())}},
              Precision::fp32, a);
  return {a[2].data.begin(), a[2].data.end()};
}

TEST(Conv1dReference, SmallHandComputedNoFlip) {
  // in = 1 2 3 4 5, k = 1 0 -1: out[i] = in[i] - in[i+2] = -2 -2 -2
  EXPECT_EQ(correlate({1, 2, 3, 4, 5}, {1, 0, -1}), (std::vector<double>{-2, -2, -2}));
  // k = 0.5 2: out[i] = 0.5 in[i] + 2 in[i+1] (a convolution would give 2 in[i] + 0.5 in[i+1])
  EXPECT_EQ(correlate({1, 2, 3}, {0.5, 2}), (std::vector<double>{4.5, 7}));
}

TEST(Conv1dReference, EdgeSizes) {
  EXPECT_EQ(correlate({-3}, {0.5}), (std::vector<double>{-1.5}));          // 1 x 1
  EXPECT_EQ(correlate({1, 2, 3, 4}, {1, 1, 1, 1}), (std::vector<double>{10}));  // k = n: one output
  EXPECT_EQ(correlate({1, -2, 3}, {2}), (std::vector<double>{2, -4, 6}));  // k = 1: scaling
}

TEST(Conv1dReference, CrossesTheReferenceBlocks) {
  // 10000 outputs span three 4096-output blocks; a delta kernel at tap 4 shifts the input by 4.
  std::vector<double> in(10004), k(5, 0.0);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>(i % 13) - 6.0;
  k[4] = 1.0;
  const auto out = correlate(in, k);
  ASSERT_EQ(out.size(), 10000u);
  for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], in[i + 4]) << i;
}

TEST(Conv1dReference, MatchesDirectSumOnGeneratedInputs) {
  const TaskSpec& t = get_task("conv_1d");
  const Shape s{{"input_size", 12345}, {"kernel_size", 300}};
  const Args in = make_inputs(t, s, Precision::bf16, 2);
  const Args out = make_expected(t, s, Precision::bf16, in);
  ASSERT_EQ(out[2].data.size(), 12046u);
  for (std::size_t i : {std::size_t{0}, std::size_t{4095}, std::size_t{4096}, std::size_t{12045}}) {
    double want = 0;
    for (std::size_t q = 0; q < 300; ++q) want += in[0].data[i + q] * in[1].data[q];
    EXPECT_NEAR(out[2].data[i], want, 1e-12) << i;
  }
}

TEST(Conv1dReference, InputsAreCounterDrawsInMinusOneOne) {
  // Uniform inputs (the verifier draws large ones on the GPU): input and kernel U(-1, 1), distinct draws.
  const TaskSpec& t = get_task("conv_1d");
  ASSERT_TRUE(t.uniform_inputs);
  const Shape s{{"input_size", 1000}, {"kernel_size", 300}};
  const Args in = make_inputs(t, s, Precision::fp32, 7);
  ASSERT_EQ(in[0].data.size(), 1000u);
  ASSERT_EQ(in[1].data.size(), 300u);
  ASSERT_EQ(in[2].data.size(), 701u);
  EXPECT_EQ(in[3].value, 1000.0);
  EXPECT_EQ(in[4].value, 300.0);
  for (std::size_t b : {0u, 1u}) {
    double lo = 1, hi = -1;
    for (double v : in[b].data) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    EXPECT_GE(lo, -1.0);
    EXPECT_LT(lo, -0.9);
    EXPECT_LE(hi, 1.0);
    EXPECT_GT(hi, 0.9);
  }
  EXPECT_NE(std::vector<double>(in[0].data.begin(), in[0].data.begin() + 300), in[1].data);
}

TEST(Conv1dTolerance, GrowsWithTheKernelAndStaysTight) {
  const TaskSpec& t = get_task("conv_1d");
  const Tolerance a = t.tolerance(Shape{{"input_size", 1024}, {"kernel_size", 32}}, Precision::fp32);
  const Tolerance b = t.tolerance(Shape{{"input_size", 1024}, {"kernel_size", 256}}, Precision::fp32);
  EXPECT_GT(b.atol, a.atol);
  EXPECT_LT(b.atol, 1e-4);  // outputs are ~sqrt(256)/3 ~ 5: a dropped tap is far outside
  EXPECT_EQ(t.tolerance(Shape{{"input_size", 1024}, {"kernel_size", 32}}, Precision::bf16).rtol, 8e-3);
}

}  // namespace
