// Hand-checked cases for the conv_2d FP64 reference (valid cross-correlation, row-major, no flip).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

std::vector<double> correlate(const std::vector<double>& in, int64_t ir, int64_t ic, const std::vector<double>& k,
                              int64_t kr, int64_t kc) {
  const TaskSpec& t = get_task("conv_2d");
  Args a(7);
  a[0].data.assign(in.begin(), in.end());
  a[1].data.assign(k.begin(), k.end());
  a[2].data.assign(static_cast<std::size_t>((ir - kr + 1) * (ic - kc + 1)), 0.0);
  a[3].value = static_cast<double>(ir);
  a[4].value = static_cast<double>(ic);
  a[5].value = static_cast<double>(kr);
  a[6].value = static_cast<double>(kc);
  t.reference(Shape{{"input_rows", ir}, {"input_cols", ic}, {"kernel_rows", kr}, {"kernel_cols", kc}}, Precision::fp32, a);
  return {a[2].data.begin(), a[2].data.end()};
}

TEST(Conv2dReference, ThreeByThreeWithTwoByTwoFilter) {
  // in = [1 2 3; 4 5 6; 7 8 9], k = [1 0; 0 -1]: out[i][j] = in[i][j] - in[i+1][j+1] = -4 everywhere.
  EXPECT_EQ(correlate({1, 2, 3, 4, 5, 6, 7, 8, 9}, 3, 3, {1, 0, 0, -1}, 2, 2), (std::vector<double>{-4, -4, -4, -4}));
  // k = [0 1; 2 0] is not flipped: out[i][j] = in[i][j+1] + 2 in[i+1][j]
  EXPECT_EQ(correlate({1, 2, 3, 4, 5, 6, 7, 8, 9}, 3, 3, {0, 1, 2, 0}, 2, 2), (std::vector<double>{10, 13, 19, 22}));
}

TEST(Conv2dReference, NonSquareShapesAreRowMajor) {
  // 2 x 4 input, 1 x 3 filter: out is 2 x 2, each row correlated on its own.
  EXPECT_EQ(correlate({1, 2, 3, 4, 10, 20, 30, 40}, 2, 4, {1, 1, -1}, 1, 3), (std::vector<double>{0, 1, 0, 10}));
  // 3 x 2 input, 2 x 1 filter: vertical differences, out is 2 x 2.
  EXPECT_EQ(correlate({1, 2, 4, 8, 16, 32}, 3, 2, {-1, 1}, 2, 1), (std::vector<double>{3, 6, 12, 24}));
}

TEST(Conv2dReference, EdgeSizes) {
  EXPECT_EQ(correlate({-2}, 1, 1, {0.25}, 1, 1), (std::vector<double>{-0.5}));
  EXPECT_EQ(correlate({1, 2, 3, 4, 5, 6}, 2, 3, {1, 1, 1, 1, 1, 1}, 2, 3), (std::vector<double>{21}));  // filter = image
}

TEST(Conv2dReference, MatchesDirectSumOnGeneratedInputs) {
  const TaskSpec& t = get_task("conv_2d");
  const Shape s{{"input_rows", 257}, {"input_cols", 300}, {"kernel_rows", 9}, {"kernel_cols", 5}};
  const Args in = make_inputs(t, s, Precision::fp32, 4);
  const Args out = make_expected(t, s, Precision::fp32, in);
  const std::size_t oc = 296;
  ASSERT_EQ(out[2].data.size(), 249u * oc);
  for (std::size_t i : {std::size_t{0}, std::size_t{100}, std::size_t{248}})
    for (std::size_t j : {std::size_t{0}, std::size_t{7}, std::size_t{295}}) {
      double want = 0;
      for (std::size_t m = 0; m < 9; ++m)
        for (std::size_t n = 0; n < 5; ++n) want += in[0].data[(i + m) * 300 + j + n] * in[1].data[m * 5 + n];
      EXPECT_NEAR(out[2].data[i * oc + j], want, 1e-12) << i << "," << j;
    }
}

}  // namespace

// The FP32 tolerance holds, with margin, for the honest FP32 orders a kernel may use: one long
// sequential accumulator (with or without FMA contraction) over a 32 x 32 filter, measured over
// 2^17 outputs of generator-like inputs; and it still rejects a dropped filter tap.
TEST(Conv2dTolerance, CoversSequentialFp32AccumulationAndRejectsADroppedTap) {
  const TaskSpec& t = get_task("conv_2d");
  const Tolerance tol = t.tolerance(Shape{{"input_rows", 8192}, {"input_cols", 8192}, {"kernel_rows", 32}, {"kernel_cols", 32}},
                                    Precision::fp32);
  constexpr int K = 32 * 32, kOutputs = 1 << 17;
  Rng rng(7);
  std::vector<double> a(K), b(K);
  rng.fill_uniform(b, -1.0, 1.0);
  for (double& x : b) x = static_cast<float>(x);
  double worst = 0;
  for (int o = 0; o < kOutputs; ++o) {
    rng.fill_uniform(a, -1.0, 1.0);
    double exact = 0;
    float fma_sum = 0, mul_add = 0;
    for (int k = 0; k < K; ++k) {
      const float x = static_cast<float>(a[k]), y = static_cast<float>(b[k]);
      exact += static_cast<double>(x) * static_cast<double>(y);
      fma_sum = std::fma(x, y, fma_sum);
      mul_add = mul_add + x * y;
    }
    const double allowed = tol.atol + tol.rtol * std::abs(exact);
    worst = std::max({worst, std::abs(fma_sum - exact) / allowed, std::abs(mul_add - exact) / allowed});
  }
  std::printf("worst sequential FP32 error over %d outputs: %.3f of the tolerance\n", kOutputs, worst);
  EXPECT_LT(worst, 0.6) << "max error / tolerance over " << kOutputs << " sequential FP32 sums";
  EXPECT_GT(worst, 0.05) << "the measurement is not measuring";
  // A dropped tap changes an output by |a b|, 0.25 on average: far outside (outputs are ~10).
  EXPECT_GT(0.25 / (tol.atol + tol.rtol * 10.0), 500.0);
}
