// Hand-checked cases for the softmax FP64 reference (row-wise over an N x C matrix).
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

std::vector<double> run(int64_t n, int64_t c, const std::vector<double>& x) {
  const TaskSpec& t = get_task("softmax");
  Args a(t.params.size());
  a[0].data.assign(x.size(), 0.0);
  a[1].data.assign(x.begin(), x.end());
  a[2].value = static_cast<double>(n);
  a[3].value = static_cast<double>(c);
  t.reference(Shape{{"N", n}, {"C", c}}, Precision::fp32, a);
  return {a[0].data.begin(), a[0].data.end()};
}

TEST(Softmax, UniformRowIsOneOverC) {
  const auto y = run(1, 4, {3, 3, 3, 3});
  for (double v : y) EXPECT_DOUBLE_EQ(v, 0.25);
}

TEST(Softmax, TwoRowsAreIndependent) {
  // Row 0: [0, ln 3] -> [1/4, 3/4]. Row 1: [5, 5 + ln 1] -> [1/2, 1/2].
  const auto y = run(2, 2, {0, std::log(3.0), 5, 5});
  EXPECT_NEAR(y[0], 0.25, 1e-15);
  EXPECT_NEAR(y[1], 0.75, 1e-15);
  EXPECT_NEAR(y[2], 0.5, 1e-15);
  EXPECT_NEAR(y[3], 0.5, 1e-15);
}

TEST(Softmax, SingleColumnIsOne) {
  const auto y = run(3, 1, {-120, 0, 110});
  EXPECT_EQ(y, (std::vector<double>{1, 1, 1}));
}

TEST(Softmax, LargeMagnitudesStayFinite) {
  // exp(1000) overflows even FP64: the reference must subtract the row maximum.
  const auto y = run(1, 3, {1000, 1000 - std::log(2.0), -1000});
  EXPECT_NEAR(y[0], 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(y[1], 1.0 / 3.0, 1e-12);
  EXPECT_GE(y[2], 0.0);
  EXPECT_LT(y[2], 1e-300);
}

TEST(Softmax, ShiftInvariance) {
  const auto a = run(1, 3, {1, 2, 3});
  const auto b = run(1, 3, {101, 102, 103});
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(a[static_cast<std::size_t>(i)], b[static_cast<std::size_t>(i)], 1e-15);
  EXPECT_NEAR(a[0], std::exp(1.0) / (std::exp(1.0) + std::exp(2.0) + std::exp(3.0)), 1e-15);
}

TEST(Softmax, GeneratedRowsSumToOneAndContainOverflowingValues) {
  const TaskSpec& t = get_task("softmax");
  const Shape s{{"N", 8}, {"C", 300}};
  const Args in = make_inputs(t, s, Precision::fp32, 1);
  const Args e = make_expected(t, s, Precision::fp32, in);
  bool overflow_row = false, underflow_row = false;
  for (int64_t r = 0; r < 8; ++r) {
    double sum = 0, mx = -1e300, mn = 1e300;
    for (int64_t j = 0; j < 300; ++j) {
      const auto k = static_cast<std::size_t>(r * 300 + j);
      sum += e[0].data[k];
      mx = std::max(mx, in[1].data[k]);
      mn = std::min(mn, in[1].data[k]);
    }
    EXPECT_NEAR(sum, 1.0, 1e-12) << r;
    overflow_row |= mn > 60.0 && mx > 88.8;  // a row of large values, some of whose exp overflow FP32
    underflow_row |= mx < -88.0;  // exp is below FP32's smallest normal for every element
  }
  EXPECT_TRUE(overflow_row);
  EXPECT_TRUE(underflow_row);
}

}  // namespace

// The FP32 tolerance covers the FP32 orders a kernel may use for the row sum at the widest rows of the
// sweeps (C = 131072), on the generator's rows (all four regimes): one sequential accumulator per row
// (two passes: max, then sum; or an online softmax that rescales the sum when the maximum grows),
// dividing or multiplying by the reciprocal, and a 256-thread strided sum with a tree.
TEST(SoftmaxTolerance, CoversSequentialFp32RowSumsAtTheWidestRows) {
  const TaskSpec& t = get_task("softmax");
  const Shape s{{"N", 32}, {"C", 131072}};  // 8 rows of each regime; the large sweep has 1024 such rows
  const Args in = make_inputs(t, s, Precision::fp32, 5);
  const Args ref = make_expected(t, s, Precision::fp32, in);
  const Tolerance tol = t.tolerance(s, Precision::fp32);
  const double old_rtol = 1e-5;
  const auto c = static_cast<std::size_t>(s["C"]);
  double worst = 0, worst_old = 0;
  std::vector<float> x(c);
  for (std::size_t r = 0; r < 32; ++r) {
    for (std::size_t j = 0; j < c; ++j) x[j] = static_cast<float>(in[1].data[r * c + j]);
    const float m = *std::max_element(x.begin(), x.end());
    float seq = 0, online = 0, online_max = -INFINITY;
    std::vector<float> lanes(256, 0.0f);
    for (std::size_t j = 0; j < c; ++j) {
      const float e = std::exp(x[j] - m);
      seq += e;
      lanes[j % 256] += e;
      if (x[j] > online_max) {
        online *= std::exp(online_max - x[j]);
        online_max = x[j];
      }
      online += std::exp(x[j] - online_max);
    }
    for (std::size_t w = 128; w > 0; w /= 2)
      for (std::size_t k = 0; k < w; ++k) lanes[k] += lanes[k + w];
    const float inv = 1.0f / seq;
    for (std::size_t j = 0; j < c; ++j) {
      const double want = ref[0].data[r * c + j];
      const float e = std::exp(x[j] - m);
      for (const float got : {e / seq, e * inv, std::exp(x[j] - online_max) / online, e / lanes[0]}) {
        const double err = std::fabs(static_cast<double>(got) - want);
        worst = std::max(worst, err / (tol.atol + tol.rtol * want));
        worst_old = std::max(worst_old, err / (tol.atol + old_rtol * want));
      }
    }
  }
  std::printf("softmax rows of 131072: worst %.3f of the tolerance (previous tolerance: %.2f)\n", worst, worst_old);
  EXPECT_LT(worst, 0.6);
  EXPECT_GT(worst_old, 1.0);
  // A dropped maximum term (1 out of a sum of ~C/40 in the U(70, 110) rows) is still outside.
  EXPECT_GT(40.0 / 131072.0, tol.rtol);
}

TEST(SoftmaxParallel, SameInputsAndReferenceOnOneCpu) {
  // The generator and the FP64 reference split their work over the CPUs (fixed chunks, fixed
  // combining order): a child pinned to one CPU must reproduce them bit for bit.
  const TaskSpec& t = get_task("softmax");
  for (const Shape& s : {Shape{{"N", 9}, {"C", (int64_t{1} << 17) + 1}}}) {
    EXPECT_EQ(differences_on_one_cpu(t, s), 0u) << s.str();
  }
}
