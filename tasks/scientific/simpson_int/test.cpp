// Hand-checked cases for the simpson_int FP64 reference (odd N: composite Simpson; even N: Simpson over
// 0..N-2 plus the last-interval parabola, as scipy.integrate.simpson >= 1.11).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "support/fp32_error_model.hpp"
#include "mskb/core/instance.hpp"
#include "support/one_cpu.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

double integrate(const std::vector<double>& y, double a, double b) {
  const TaskSpec& t = get_task("simpson_int");
  Args x(5);
  x[0].data.assign(y.begin(), y.end());
  x[1].data = {0.0};
  x[2].value = a;
  x[3].value = b;
  x[4].value = static_cast<double>(y.size());
  t.reference(Shape{{"N", static_cast<int64_t>(y.size())}}, Precision::fp32, x);
  return x[1].data[0];
}

std::vector<double> sample(double (*f)(double), double a, double b, int n) {
  std::vector<double> y(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) y[static_cast<std::size_t>(i)] = f(a + (b - a) * i / (n - 1));
  return y;
}

TEST(SimpsonIntReference, ThreeSamplesIsOnePanel) {
  EXPECT_DOUBLE_EQ(integrate({1, 2, 3}, 0.0, 2.0), 4.0);  // h/3 * (1 + 8 + 3), h = 1
  EXPECT_DOUBLE_EQ(integrate({2, -1, 5}, 1.0, 5.0), 2.0 / 3.0 * (2 - 4 + 5));  // h = 2
}

TEST(SimpsonIntReference, OddNIsExactForCubics) {
  auto cube = [](double x) { return x * x * x - 2 * x + 1; };  // integral over [-1, 3]: 20 - 8 + 4 = 16
  EXPECT_NEAR(integrate(sample(cube, -1, 3, 5), -1, 3), 16.0, 1e-12);
  EXPECT_NEAR(integrate(sample(cube, -1, 3, 101), -1, 3), 16.0, 1e-11);
  auto sq = [](double x) { return x * x; };
  EXPECT_NEAR(integrate(sample(sq, 0, 4, 5), 0, 4), 64.0 / 3.0, 1e-12);  // 1/3*(0 + 4 + 8 + 36 + 16)
}

TEST(SimpsonIntReference, EvenNWeightsAreSimpsonPlusLastParabola) {
  // Unit samples read off the weights: N = 4 -> h/12 * (4, 15, 12, 5); N = 6 -> (4, 16, 8, 15, 12, 5).
  const double w4[] = {4, 15, 12, 5};
  for (int i = 0; i < 4; ++i) {
    std::vector<double> y(4, 0.0);
    y[static_cast<std::size_t>(i)] = 1.0;
    EXPECT_NEAR(integrate(y, 0.0, 3.0), w4[i] / 12.0, 1e-15) << i;  // h = 1
  }
  const double w6[] = {4, 16, 8, 15, 12, 5};
  for (int i = 0; i < 6; ++i) {
    std::vector<double> y(6, 0.0);
    y[static_cast<std::size_t>(i)] = 1.0;
    EXPECT_NEAR(integrate(y, 0.0, 10.0), 2.0 * w6[i] / 12.0, 1e-15) << i;  // h = 2
  }
}

TEST(SimpsonIntReference, EvenNIsExactForQuadratics) {
  auto q = [](double x) { return 3 * x * x - x + 2; };  // integral over [0, 3]: 27 - 4.5 + 6 = 28.5
  EXPECT_NEAR(integrate(sample(q, 0, 3, 4), 0, 3), 28.5, 1e-12);
  EXPECT_NEAR(integrate(sample(q, 0, 3, 6), 0, 3), 28.5, 1e-12);
  EXPECT_NEAR(integrate(sample(q, 0, 3, 1000), 0, 3), 28.5, 1e-10);
}

TEST(SimpsonIntReference, ConvergesForSmoothFunctionsBothParities) {
  auto s = [](double x) { return std::sin(x); };  // integral over [0, pi] = 2
  const double pi = std::acos(-1.0);
  EXPECT_NEAR(integrate(sample(s, 0, pi, 1001), 0, pi), 2.0, 1e-11);
  EXPECT_NEAR(integrate(sample(s, 0, pi, 1000), 0, pi), 2.0, 1e-9);
}

TEST(SimpsonIntReference, AddsToTheResult) {
  const TaskSpec& t = get_task("simpson_int");
  Args x(5);
  x[0].data = {1, 1, 1};
  x[1].data = {5.0};
  x[2].value = 0;
  x[3].value = 1;
  x[4].value = 3;
  t.reference(Shape{{"N", 3}}, Precision::bf16, x);
  EXPECT_DOUBLE_EQ(x[1].data[0], 6.0);
}

TEST(SimpsonIntTolerance, RejectsTheDroppedLastIntervalAtPaperSizes) {
  // The published kernels drop the last interval for even N; the tolerance must see that.
  const TaskSpec& t = get_task("simpson_int");
  const Shape s{{"N", int64_t{1} << 14}};
  int rejected = 0;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const Args in = make_inputs(t, s, Precision::fp32, seed);
    const Args ref = make_expected(t, s, Precision::fp32, in);
    const mskb::HostData& y = in[0].data;
    const auto n = y.size();
    const double h = (in[3].value - in[2].value) / static_cast<double>(n - 1);
    double panels = 0;
    for (std::size_t p = 0; p + 2 < n; p += 2) panels += y[p] + 4 * y[p + 1] + y[p + 2];
    const double dropped = h / 3 * panels;
    const Tolerance tol = t.tolerance(s, Precision::fp32);
    if (std::fabs(dropped - ref[1].data[0]) > tol.atol + tol.rtol * std::fabs(ref[1].data[0])) ++rejected;
  }
  EXPECT_GE(rejected, 4);
}

}  // namespace

// The FP32 tolerance covers one sequential FP32 accumulator over all N weighted samples at every size
// of every sweep, and still rejects bf16 accumulation.
TEST(SimpsonIntTolerance, CoversOneSequentialFp32AccumulatorAtEverySize) {
  using namespace mskb::fp32_model;
  const TaskSpec& t = get_task("simpson_int");
  // The weighted sum S = sum w[i] y[i] (w = 4, 16, 8, 16, ..., in units of h/12; the products are
  // exact) errs by O(u N) at any N, so 2048 sums of 2^14 + 1 samples give the distribution of
  // |error| / (u N) at the large sizes too. The result's error is h / 12 times the sum's, and so is
  // atol (for the widest interval; rtol adds nothing for a result near 0): the ratio is the sum's.
  constexpr int kN = (1 << 14) + 1, kTrials = 2048;
  Rng rng(31);
  double worst = 0;  // max |error of the sum| / (u N)
  for (int trial = 0; trial < kTrials; ++trial) {
    Fp32Sum sum;
    double exact = 0;
    for (int i = 0; i < kN; ++i) {
      const float w = (i == 0 || i == kN - 1) ? 4.0f : (i % 2 == 1 ? 16.0f : 8.0f);
      const float wy = w * static_cast<float>(rng.uniform(-10.0, 10.0));  // exact: w is a power of 2
      sum.add(wy);
      exact += wy;
    }
    worst = std::max(worst, std::fabs(sum.value - exact));
  }
  worst /= kU * kN;
  std::printf("sequential FP32 Simpson sums: worst |error| of %d = %.1f u N\n", kTrials, worst);
  EXPECT_GT(worst, 50.0) << "the simulation is not measuring";
  std::vector<Shape> shapes = t.paper;
  shapes.insert(shapes.end(), t.heldout.begin(), t.heldout.end());
  shapes.insert(shapes.end(), t.large.begin(), t.large.end());
  for (const Shape& s : shapes) {
    const double n = static_cast<double>(s["N"]);
    if (n < kN - 1) continue;
    const double h12 = 2000.0 / (n - 1.0) / 12.0;  // h / 12 for the widest interval
    const double result_error = h12 * worst * kU * n;
    EXPECT_LT(result_error / t.tolerance(s, Precision::fp32).atol, 0.6) << "N = " << s["N"];
    // The previous atol, h / 12 * u * 160 * (64 sqrt(N) + N / 16), from N = 2^20 on.
    if (n >= 1e6) {
      EXPECT_GT(result_error / (h12 * kU * 160.0 * (64.0 * std::sqrt(n) + n / 16.0)), 1.0) << n;
    }
  }
}

TEST(SimpsonIntTolerance, StillRejectsBf16Accumulation) {
  // wrong/bf16_accumulate.cu: each thread adds 512 consecutive weighted samples w[i] * y[i] (w = 1, 4,
  // 2 in units of h/3) with a bf16 FMA into a bf16 register; the per-thread sums go to a float by
  // atomicAdd. At the largest paper size, with the widest interval, it stays far outside.
  const TaskSpec& t = get_task("simpson_int");
  auto bf = [](double x) { return static_cast<float>(round_to(Precision::bf16, x)); };
  const int64_t n = int64_t{1} << 22;
  const Tolerance tol = t.tolerance(Shape{{"N", n}}, Precision::bf16);
  const double h3 = 2000.0 / static_cast<double>(n - 1) / 3.0;
  Rng rng(32);
  double worst = 0;
  for (int trial = 0; trial < 3; ++trial) {
    double exact = 0;
    float sum = 0;
    for (int64_t th = 0; th < n / 512; ++th) {
      float acc = 0;
      for (int k = 0; k < 512; ++k) {
        const int64_t i = th * 512 + k;
        const float w = (i == 0 || i == n - 2) ? 1.0f : (i % 2 == 1 ? 4.0f : 2.0f);  // last interval aside
        const float y = bf(rng.uniform(-10.0, 10.0));
        exact += static_cast<double>(w) * y;
        acc = bf(std::fma(w, y, acc));
      }
      sum += acc;
    }
    worst = std::max(worst, h3 * std::fabs(sum - exact) / (tol.atol + tol.rtol * h3 * std::fabs(exact)));
  }
  std::printf("bf16 accumulation, N = 2^22: worst of 3 is %.1fx the tolerance\n", worst);
  EXPECT_GT(worst, 2.0);
}

TEST(SimpsonIntParallel, SameInputsAndReferenceOnOneCpu) {
  // The generator and the FP64 reference split their work over the CPUs (fixed chunks, fixed
  // combining order): a child pinned to one CPU must reproduce them bit for bit.
  const TaskSpec& t = get_task("simpson_int");
  for (const Shape& s : {Shape{{"N", (int64_t{1} << 20) + 1}}}) {
    EXPECT_EQ(differences_on_one_cpu(t, s), 0u) << s.str();
  }
}
