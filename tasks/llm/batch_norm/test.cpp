// Hand-checked cases for the batch_norm FP64 reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "mskb/core/instance.hpp"
#include "support/one_cpu.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

std::vector<double> run(int64_t n, int64_t c, const std::vector<double>& x, const std::vector<double>& g,
                        const std::vector<double>& b, double eps) {
  const TaskSpec& t = get_task("batch_norm");
  Args a(t.params.size());
  a[0].data.assign(x.size(), 0.0);
  a[1].data.assign(x.begin(), x.end());
  a[2].data.assign(g.begin(), g.end());
  a[3].data.assign(b.begin(), b.end());
  a[4].value = eps;
  a[5].value = static_cast<double>(n);
  a[6].value = static_cast<double>(c);
  t.reference(Shape{{"N", n}, {"C", c}}, Precision::fp32, a);
  return {a[0].data.begin(), a[0].data.end()};
}

TEST(BatchNorm, StatisticsPerChannelOverRows) {
  // 2 x 2, row-major: channel 0 = {1, 3} (mean 2, var 1), channel 1 = {10, 10} (var 0).
  const auto y = run(2, 2, {1, 10, 3, 10}, {1, 1}, {0, 5}, 0.0 + 1e-300);
  EXPECT_NEAR(y[0], -1.0, 1e-12);
  EXPECT_NEAR(y[2], 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(y[1], 5.0);  // constant channel: output = beta
  EXPECT_DOUBLE_EQ(y[3], 5.0);
}

TEST(BatchNorm, BiasedVarianceGammaBetaAndEpsilon) {
  // One channel {0, 2, 4, 6}: mean 3, biased var (9 + 1 + 1 + 9) / 4 = 5; eps = 4 -> 1/sqrt(9) = 1/3.
  const auto y = run(4, 1, {0, 2, 4, 6}, {3}, {-1}, 4.0);
  EXPECT_DOUBLE_EQ(y[0], 3.0 * (-3.0 / 3.0) - 1.0);
  EXPECT_DOUBLE_EQ(y[1], 3.0 * (-1.0 / 3.0) - 1.0);
  EXPECT_DOUBLE_EQ(y[2], 3.0 * (1.0 / 3.0) - 1.0);
  EXPECT_DOUBLE_EQ(y[3], 3.0 * (3.0 / 3.0) - 1.0);
}

TEST(BatchNorm, SingleRowGivesBeta) {
  const auto y = run(1, 3, {4, -2, 7}, {2, 2, 2}, {0.5, -0.5, 1.5}, 1e-5);
  EXPECT_DOUBLE_EQ(y[0], 0.5);
  EXPECT_DOUBLE_EQ(y[1], -0.5);
  EXPECT_DOUBLE_EQ(y[2], 1.5);
}

TEST(BatchNorm, GeneratedChannelsAreNormalised) {
  // With gamma 1 and beta 0 substituted every channel of the reference output has mean 0, variance ~1.
  const TaskSpec& t = get_task("batch_norm");
  const Shape s{{"N", 1025}, {"C", 129}};
  Args in = make_inputs(t, s, Precision::bf16, 2);
  for (auto& v : in[2].data) v = 1.0;
  for (auto& v : in[3].data) v = 0.0;
  const Args e = make_expected(t, s, Precision::bf16, in);
  for (std::size_t k : {std::size_t{0}, std::size_t{64}, std::size_t{128}}) {
    double m = 0, q = 0;
    for (std::size_t r = 0; r < 1025; ++r) m += e[0].data[r * 129 + k];
    m /= 1025.0;
    for (std::size_t r = 0; r < 1025; ++r) q += (e[0].data[r * 129 + k] - m) * (e[0].data[r * 129 + k] - m);
    EXPECT_NEAR(m, 0.0, 1e-12);
    EXPECT_NEAR(q / 1025.0, 1.0, 1e-4);
  }
}

// The channels counter draw: every channel has its own offset (U(-0.5, 0.5)) and spread (U(1, 2)), so
// the channel means and widths differ; every value lies within offset +- spread.
TEST(BatchNorm, ChannelsHaveTheirOwnOffsetAndSpread) {
  const TaskSpec& t = get_task("batch_norm");
  const std::size_t n = 2048, c = 64;
  const Args in = make_inputs(t, Shape{{"N", static_cast<int64_t>(n)}, {"C", static_cast<int64_t>(c)}}, Precision::fp32, 4);
  std::vector<double> mid(c), half(c);
  for (std::size_t k = 0; k < c; ++k) {
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (std::size_t r = 0; r < n; ++r) {
      lo = std::min(lo, in[1].data[r * c + k]);
      hi = std::max(hi, in[1].data[r * c + k]);
    }
    mid[k] = (lo + hi) / 2;  // ~ the offset: 2048 uniform draws reach within 0.2% of both ends
    half[k] = (hi - lo) / 2;  // ~ the spread
    ASSERT_LE(std::fabs(mid[k]), 0.5 + 0.01) << k;
    ASSERT_GE(half[k], 1.0 - 0.01) << k;
    ASSERT_LE(half[k], 2.0) << k;
  }
  EXPECT_GT(*std::max_element(mid.begin(), mid.end()) - *std::min_element(mid.begin(), mid.end()), 0.6);
  EXPECT_GT(*std::max_element(half.begin(), half.end()) - *std::min_element(half.begin(), half.end()), 0.6);
  for (std::size_t k = 0; k < c; ++k) {
    EXPECT_GE(in[2].data[k], 0.5);
    EXPECT_LE(in[2].data[k], 1.5);
    EXPECT_LE(std::fabs(in[3].data[k]), 1.0);
  }
}

}  // namespace

// The FP32 tolerance covers one FP32 accumulator per channel and statistic (a thread per channel
// walking all N rows, FP32 two-pass mean and variance) at the large sweep's N = 2^20 rows, on the
// generator's data (4 channels here, every output checked), and the same kernel failed the previous one.
TEST(BatchNormTolerance, CoversOneFp32AccumulatorPerChannelOver2To20Rows) {
  const TaskSpec& t = get_task("batch_norm");
  const Shape s{{"N", int64_t{1} << 20}, {"C", 4}};
  const Args in = make_inputs(t, s, Precision::fp32, 3);
  const Args ref = make_expected(t, s, Precision::fp32, in);
  const Tolerance tol = t.tolerance(Shape{{"N", int64_t{1} << 20}, {"C", 256}}, Precision::fp32);
  const Tolerance old{2e-5, 1e-5};
  const std::size_t n = std::size_t{1} << 20, c = 4;
  const auto eps = static_cast<float>(in[4].value);
  double worst = 0, worst_old = 0;
  for (std::size_t k = 0; k < c; ++k) {
    float sum = 0;
    for (std::size_t r = 0; r < n; ++r) sum += static_cast<float>(in[1].data[r * c + k]);
    const float mean = sum / static_cast<float>(n);
    float sq = 0;
    for (std::size_t r = 0; r < n; ++r) {
      const float d = static_cast<float>(in[1].data[r * c + k]) - mean;
      sq += d * d;
    }
    const float rstd = 1.0f / std::sqrt(sq / static_cast<float>(n) + eps);
    const auto g = static_cast<float>(in[2].data[k]), b = static_cast<float>(in[3].data[k]);
    for (std::size_t r = 0; r < n; ++r) {
      const float got = g * ((static_cast<float>(in[1].data[r * c + k]) - mean) * rstd) + b;
      const double want = ref[0].data[r * c + k], err = std::fabs(got - want);
      worst = std::max(worst, err / (tol.atol + tol.rtol * std::fabs(want)));
      worst_old = std::max(worst_old, err / (old.atol + old.rtol * std::fabs(want)));
    }
  }
  std::printf("one FP32 accumulator per channel over 2^20 rows: worst %.3f of the tolerance (previous: %.1f)\n", worst, worst_old);
  EXPECT_LT(worst, 0.6);
  EXPECT_GT(worst_old, 1.0);
  // Still tight: rounding the outputs to bf16 (up to 2^-9 relative) exceeds it from |ref| ~ 1 on.
  EXPECT_LT(tol.atol + tol.rtol * 2.0, std::ldexp(1.0, -9) * 2.0);
}

TEST(BatchNormParallel, SameInputsAndReferenceOnOneCpu) {
  // The generator and the FP64 reference split their work over the CPUs (fixed chunks, fixed
  // combining order): a child pinned to one CPU must reproduce them bit for bit.
  const TaskSpec& t = get_task("batch_norm");
  for (const Shape& s : {Shape{{"N", 5000}, {"C", 37}}, Shape{{"N", 3000}, {"C", 1500}}}) {
    EXPECT_EQ(differences_on_one_cpu(t, s), 0u) << s.str();
  }
}

TEST(BatchNormParallel, MatchesASequentialFp64Loop) {
  // Several row blocks and several channel blocks of the parallel statistics.
  const TaskSpec& t = get_task("batch_norm");
  const Shape s{{"N", 3000}, {"C", 1500}};
  const Args in = make_inputs(t, s, Precision::fp32, 5);
  const Args e = make_expected(t, s, Precision::fp32, in);
  const std::size_t n = 3000, c = 1500;
  const mskb::HostData& x = in[1].data;
  std::vector<double> mean(c, 0.0), sq(c, 0.0);
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t k = 0; k < c; ++k) mean[k] += x[r * c + k];
  for (auto& m : mean) m /= static_cast<double>(n);
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t k = 0; k < c; ++k) sq[k] += (x[r * c + k] - mean[k]) * (x[r * c + k] - mean[k]);
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t k = 0; k < c; ++k) {
      const double rstd = 1.0 / std::sqrt(sq[k] / static_cast<double>(n) + in[4].value);
      const double want = in[2].data[k] * (x[r * c + k] - mean[k]) * rstd + in[3].data[k];
      ASSERT_NEAR(e[0].data[r * c + k], want, 1e-12 * std::max(1.0, std::fabs(want))) << r << "," << k;
    }
}

// Two or a few rows per channel: the variance of N draws comes arbitrarily close to 0 (two draws of
// N = 2 within 3e-3 of each other: a few channels in a thousand), where rstd, up to 1/sqrt(eps) =
// 316, amplifies the FP32 rounding of the mean in x - mean. The kernel's FP32 arithmetic (the
// baseline's: float sums per chunk, the mean rounded to float, float deviations, rstd from the
// double variance) must pass at such shapes, as cuDNN's does; the H200 suite drew N = 2, C = 10257
// as a random held-out shape, where baseline and vendor both erred by 4.4e-5 at two outputs.
TEST(BatchNormTolerance, CoversFp32RoundingOfTheMeanAtNearlyConstantChannels) {
  const TaskSpec& t = get_task("batch_norm");
  double worst = 0;
  for (int64_t n : {2, 3, 5, 8}) {
    const Shape s{{"N", n}, {"C", 10257}};
    const Tolerance tol = t.tolerance(s, Precision::fp32);
    for (uint64_t seed : {1, 2, 3}) {
      const Args in = make_inputs(t, s, Precision::fp32, seed);
      const Args ref = make_expected(t, s, Precision::fp32, in);
      const auto c = static_cast<std::size_t>(s["C"]), rows = static_cast<std::size_t>(n);
      const auto eps = static_cast<float>(in[4].value);
      for (std::size_t k = 0; k < c; ++k) {
        float sum = 0;
        for (std::size_t r = 0; r < rows; ++r) sum += static_cast<float>(in[1].data[r * c + k]);
        const auto mean = static_cast<float>(static_cast<double>(sum) / static_cast<double>(n));
        float sq = 0;
        for (std::size_t r = 0; r < rows; ++r) {
          const float d = static_cast<float>(in[1].data[r * c + k]) - mean;
          sq += d * d;
        }
        const auto rstd = static_cast<float>(1.0 / std::sqrt(static_cast<double>(sq) / static_cast<double>(n) + static_cast<double>(eps)));
        const auto g = static_cast<float>(in[2].data[k]), b = static_cast<float>(in[3].data[k]);
        for (std::size_t r = 0; r < rows; ++r) {
          const float got = g * ((static_cast<float>(in[1].data[r * c + k]) - mean) * rstd) + b;
          const double want = ref[0].data[r * c + k];
          worst = std::max(worst, std::fabs(got - want) / (tol.atol + tol.rtol * std::fabs(want)));
        }
      }
    }
  }
  std::printf("FP32 at N = 2..8 rows, 10257 channels, 3 seeds: worst %.3f of the tolerance\n", worst);
  EXPECT_LT(worst, 0.8);
  // From 16 rows on the tolerance is the one above: no channel of 16 draws is that close to constant.
  EXPECT_EQ(t.tolerance(Shape{{"N", 16}, {"C", 16}}, Precision::fp32).atol, 2e-5 + 0x1.0p-24 * 16 / 32.0);
}
