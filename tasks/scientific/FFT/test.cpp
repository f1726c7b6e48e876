// Hand-checked cases for the FFT FP64 reference: forward sign convention, unnormalised, natural order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

Args transform(const std::vector<double>& re, const std::vector<double>& im) {
  const TaskSpec& t = get_task("FFT");
  Args a(5);
  a[0].data.assign(re.begin(), re.end());
  a[1].data.assign(im.begin(), im.end());
  a[2].data.assign(re.size(), 0.0);
  a[3].data.assign(re.size(), 0.0);
  a[4].value = static_cast<double>(re.size());
  t.reference(Shape{{"N", static_cast<int64_t>(re.size())}}, Precision::fp32, a);
  return a;
}

TEST(FftReference, LengthOneIsIdentity) {
  const Args a = transform({0.75}, {-0.5});
  EXPECT_DOUBLE_EQ(a[2].data[0], 0.75);
  EXPECT_DOUBLE_EQ(a[3].data[0], -0.5);
}

TEST(FftReference, LengthTwoIsSumAndDifference) {
  const Args a = transform({1.0, 3.0}, {2.0, -1.0});
  EXPECT_DOUBLE_EQ(a[2].data[0], 4.0);
  EXPECT_DOUBLE_EQ(a[3].data[0], 1.0);
  EXPECT_DOUBLE_EQ(a[2].data[1], -2.0);
  EXPECT_DOUBLE_EQ(a[3].data[1], 3.0);
}

TEST(FftReference, LengthFourForwardSign) {
  // x = 1, 2, 3, 4: X = 10, -2+2i, -2, -2-2i with X[k] = sum x[n] exp(-2 pi i n k / N).
  const Args a = transform({1, 2, 3, 4}, {0, 0, 0, 0});
  const double wr[] = {10, -2, -2, -2}, wi[] = {0, 2, 0, -2};
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(a[2].data[k], wr[k], 1e-14) << k;
    EXPECT_NEAR(a[3].data[k], wi[k], 1e-14) << k;
  }
}

TEST(FftReference, ShiftedDeltaGivesTwiddles) {
  // x = delta at n = 1, N = 8: X[k] = exp(-2 pi i k / 8) = cos(pi k / 4) - i sin(pi k / 4).
  std::vector<double> re(8, 0.0), im(8, 0.0);
  re[1] = 1.0;
  const Args a = transform(re, im);
  const double pi = std::acos(-1.0);
  for (int k = 0; k < 8; ++k) {
    EXPECT_NEAR(a[2].data[k], std::cos(pi * k / 4), 1e-15) << k;
    EXPECT_NEAR(a[3].data[k], -std::sin(pi * k / 4), 1e-15) << k;
  }
}

TEST(FftReference, MatchesTheNaiveDftAcrossTheBlockedStages) {
  // 2^14 runs 12 cache-blocked stages and 2 full-array stages; compare with an O(N^2) DFT.
  const TaskSpec& t = get_task("FFT");
  for (int64_t n : {int64_t{64}, int64_t{1} << 14}) {
    const Shape s{{"N", n}};
    const Args in = make_inputs(t, s, Precision::bf16, 7);
    const Args out = make_expected(t, s, Precision::bf16, in);
    const double pi = std::acos(-1.0);
    std::vector<double> cr(static_cast<std::size_t>(n)), ci(static_cast<std::size_t>(n));
    for (int64_t q = 0; q < n; ++q) {
      cr[static_cast<std::size_t>(q)] = std::cos(-2 * pi * static_cast<double>(q) / static_cast<double>(n));
      ci[static_cast<std::size_t>(q)] = std::sin(-2 * pi * static_cast<double>(q) / static_cast<double>(n));
    }
    double max_err = 0;
    for (int64_t k = 0; k < n; k += (n > 1024 ? 97 : 1)) {
      double xr = 0, xi = 0;
      for (int64_t q = 0; q < n; ++q) {
        const auto w = static_cast<std::size_t>((q * k) % n);
        const auto qq = static_cast<std::size_t>(q);
        xr += in[0].data[qq] * cr[w] - in[1].data[qq] * ci[w];
        xi += in[0].data[qq] * ci[w] + in[1].data[qq] * cr[w];
      }
      max_err = std::max(max_err, std::fabs(xr - out[2].data[static_cast<std::size_t>(k)]));
      max_err = std::max(max_err, std::fabs(xi - out[3].data[static_cast<std::size_t>(k)]));
    }
    EXPECT_LT(max_err, 1e-9) << n;
  }
}

TEST(FftTolerance, ScalesWithLogNAndOutputMagnitude) {
  const TaskSpec& t = get_task("FFT");
  const Tolerance a = t.tolerance(Shape{{"N", 1024}}, Precision::fp32);
  const Tolerance b = t.tolerance(Shape{{"N", 4096}}, Precision::fp32);
  EXPECT_NEAR(b.atol / a.atol, 2.0 * 12.0 / 10.0, 1e-12);
  // Typical |X| = sqrt(N * 2/3) ~ 26 at N = 1024: FP32 allows ~1e-5 of it, BF16 ~1%.
  EXPECT_LT(a.atol, 26.0 * 2e-5);
  EXPECT_LT(t.tolerance(Shape{{"N", 1024}}, Precision::bf16).atol, 26.0 * 0.011);
}

}  // namespace
