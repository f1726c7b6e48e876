// Hand-checked cases for the rms_norm FP64 reference.
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

std::vector<double> run(const std::vector<double>& x, const std::vector<double>& w, const std::vector<double>& b, double eps) {
  const TaskSpec& t = get_task("rms_norm");
  Args a(t.params.size());
  a[0].data.assign(x.size(), 0.0);
  a[1].data.assign(x.begin(), x.end());
  a[2].data.assign(w.begin(), w.end());
  a[3].data.assign(b.begin(), b.end());
  a[4].value = eps;
  a[5].value = static_cast<double>(x.size());
  t.reference(Shape{{"N", static_cast<int64_t>(x.size())}}, Precision::fp32, a);
  return {a[0].data.begin(), a[0].data.end()};
}

TEST(RmsNorm, NoMeanSubtraction) {
  // mean(x^2) = (9 + 16) / 2 = 12.5; x = {3, 4} is not centred and stays positive.
  const auto y = run({3, 4}, {1, 1}, {0, 0}, 0.0);
  EXPECT_NEAR(y[0], 3.0 / std::sqrt(12.5), 1e-15);
  EXPECT_NEAR(y[1], 4.0 / std::sqrt(12.5), 1e-15);
}

TEST(RmsNorm, ElementwiseWeightAndBias) {
  // mean(x^2) = (1 + 1 + 1 + 1) / 4 = 1.
  const auto y = run({1, -1, 1, -1}, {2, 3, 4, 5}, {0.5, 0.5, -0.5, -0.5}, 0.0);
  EXPECT_DOUBLE_EQ(y[0], 2.5);
  EXPECT_DOUBLE_EQ(y[1], -2.5);
  EXPECT_DOUBLE_EQ(y[2], 3.5);
  EXPECT_DOUBLE_EQ(y[3], -5.5);
}

TEST(RmsNorm, EpsilonInsideTheSquareRoot) {
  // mean(x^2) = 1, eps = 3: rms = 2.
  const auto y = run({1, -1}, {1, 1}, {0, 0}, 3.0);
  EXPECT_DOUBLE_EQ(y[0], 0.5);
  EXPECT_DOUBLE_EQ(y[1], -0.5);
}

TEST(RmsNorm, SingleElementAndZeroInput) {
  // N = 1: x / sqrt(x^2 + eps); all-zero input: output = bias.
  EXPECT_NEAR(run({2.0}, {1.0}, {0.0}, 1e-5)[0], 2.0 / std::sqrt(4.0 + 1e-5), 1e-15);
  const auto y = run({0, 0, 0}, {5, 6, 7}, {-1, 0, 1}, 1e-5);
  EXPECT_DOUBLE_EQ(y[0], -1.0);
  EXPECT_DOUBLE_EQ(y[1], 0.0);
  EXPECT_DOUBLE_EQ(y[2], 1.0);
}

TEST(RmsNorm, ScaleInvariantWithoutEpsilon) {
  const auto a = run({1, 2, 3}, {1, 1, 1}, {0, 0, 0}, 0.0);
  const auto b = run({1e4, 2e4, 3e4}, {1, 1, 1}, {0, 0, 0}, 0.0);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(a[static_cast<std::size_t>(i)], b[static_cast<std::size_t>(i)], 1e-14);
}

TEST(RmsNorm, GeneratedInstanceHasUnitRms) {
  const TaskSpec& t = get_task("rms_norm");
  const Shape s{{"N", 4097}};
  Args in = make_inputs(t, s, Precision::fp32, 5);
  std::fill(in[2].data.begin(), in[2].data.end(), 1.0);
  std::fill(in[3].data.begin(), in[3].data.end(), 0.0);
  const Args e = make_expected(t, s, Precision::fp32, in);
  double q = 0;
  for (double v : e[0].data) q += v * v;
  EXPECT_NEAR(q / 4097.0, 1.0, 1e-5);
}

}  // namespace

namespace {

// out = w * (x * rinv) + b in FP32 from a float sum of squares; worst |out - ref| / allowed.
double worst_output_ratio(const Args& in, const Args& ref, float sum_sq, Tolerance tol) {
  const std::size_t n = in[1].data.size();
  const auto rinv = static_cast<float>(1.0f / std::sqrt(sum_sq / static_cast<float>(n) + static_cast<float>(in[4].value)));
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto x = static_cast<float>(in[1].data[i]), w = static_cast<float>(in[2].data[i]), b = static_cast<float>(in[3].data[i]);
    const float got = w * (x * rinv) + b;
    const double want = ref[0].data[i];
    worst = std::max(worst, std::fabs(got - want) / (tol.atol + tol.rtol * std::fabs(want)));
  }
  return worst;
}

// Relative error of one FP32 accumulator over m squares of U(-3, 5) values (the generator's).
double chain_relative_error(Rng& rng, int64_t m) {
  float sum = 0;
  double exact = 0;
  for (int64_t i = 0; i < m; ++i) {
    const auto x = static_cast<float>(rng.uniform(-3.0, 5.0));
    sum += x * x;
    exact += static_cast<double>(x) * static_cast<double>(x);
  }
  return (sum - exact) / exact;
}

}  // namespace

// The FP32 tolerance covers the sums of squares an FP32 kernel may use: one accumulator over the whole
// vector up to N = 2^20 (the held-out N = 1000003), and at N = 2^28 a 256-thread block striding over
// the vector (2^20 squares per accumulator) or 2^20 block sums added by float atomics.
TEST(RmsNormTolerance, CoversFp32SumsOfSquaresOfUpTo2To20Terms) {
  const TaskSpec& t = get_task("rms_norm");
  // One accumulator over the held-out N = 1000003, on the generator's data, every output checked.
  const Shape s{{"N", 1000003}};
  const Args in = make_inputs(t, s, Precision::fp32, 7);
  const Args ref = make_expected(t, s, Precision::fp32, in);
  float seq = 0;
  for (double v : in[1].data) seq += static_cast<float>(v) * static_cast<float>(v);
  const double single = worst_output_ratio(in, ref, seq, t.tolerance(s, Precision::fp32));
  const double single_old = worst_output_ratio(in, ref, seq, Tolerance{1e-5, 1e-5});
  // N = 2^28. The largest |w x / rms| is 1.5 * 5 / sqrt(6.33) = 2.98; an output errs by that times the
  // relative error of 1/rms (half the sum's), held against atol alone.
  const Tolerance big = t.tolerance(Shape{{"N", int64_t{1} << 28}}, Precision::fp32);
  Rng rng(8);
  double strided = 0;  // 256 accumulators of 2^20 squares each: their common bias (mean of 4 of them)
  for (int k = 0; k < 4; ++k) strided += chain_relative_error(rng, int64_t{1} << 20) / 4.0;
  float atomics = 0;  // 2^20 block sums of 256 squares (mean 1621, standard deviation 106), in sequence
  double atomics_exact = 0;
  for (int b = 0; b < (1 << 20); ++b) {
    const auto part = static_cast<float>(rng.normal(256.0 * 19.0 / 3.0, 106.0));
    atomics += part;
    atomics_exact += part;
  }
  const double strided_ratio = 2.98 * std::fabs(strided) / 2.0 / big.atol;
  const double atomics_ratio = 2.98 * std::fabs((atomics - atomics_exact) / atomics_exact) / 2.0 / big.atol;
  std::printf("one accumulator over N = 1000003: %.3f of the tolerance (previous: %.1f); N = 2^28: 256 strided "
              "accumulators %.3f (bias %.2g), block atomics %.3f\n",
              single, single_old, strided_ratio, strided, atomics_ratio);
  EXPECT_LT(single, 0.6);
  EXPECT_GT(single_old, 1.0);
  EXPECT_LT(strided_ratio, 0.6);
  EXPECT_GT(2.98 * std::fabs(strided) / 2.0 / 1e-5, 1.0);  // the previous atol
  EXPECT_LT(atomics_ratio, 0.6);
  // Still tight: rounding the outputs to bf16 (up to 2^-9 relative) exceeds it from |ref| ~ 1 on.
  EXPECT_LT(big.atol + big.rtol * 2.0, std::ldexp(1.0, -9) * 2.0);
}

TEST(RmsNormParallel, SameInputsAndReferenceOnOneCpu) {
  // The generator and the FP64 reference split their work over the CPUs (fixed chunks, fixed
  // combining order): a child pinned to one CPU must reproduce them bit for bit.
  const TaskSpec& t = get_task("rms_norm");
  for (const Shape& s : {Shape{{"N", (int64_t{1} << 20) + 3}}}) {
    EXPECT_EQ(differences_on_one_cpu(t, s), 0u) << s.str();
  }
}

TEST(RmsNormParallel, MatchesASequentialFp64Loop) {
  const TaskSpec& t = get_task("rms_norm");
  const Shape s{{"N", (int64_t{1} << 20) + 3}};
  const Args in = make_inputs(t, s, Precision::fp32, 5);
  const Args e = make_expected(t, s, Precision::fp32, in);
  const mskb::HostData& x = in[1].data;
  double sq = 0;
  for (double v : x) sq += v * v;
  const double rinv = 1.0 / std::sqrt(sq / static_cast<double>(x.size()) + in[4].value);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double want = in[2].data[i] * x[i] * rinv + in[3].data[i];
    ASSERT_NEAR(e[0].data[i], want, 1e-12 * std::max(1.0, std::fabs(want))) << i;
  }
}
