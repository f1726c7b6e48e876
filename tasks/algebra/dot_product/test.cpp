// Hand-checked cases for the dot_product FP64 reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "support/fp32_error_model.hpp"
#include "support/uniform_inputs.hpp"
#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

Args args_for(const std::vector<double>& x, const std::vector<double>& y) {
  const TaskSpec& t = get_task("dot_product");
  Args a(t.params.size());
  a[0].data = {0.0};
  a[1].data.assign(x.begin(), x.end());
  a[2].data.assign(y.begin(), y.end());
  a[3].value = static_cast<double>(x.size());
  return a;
}

TEST(DotProduct, SmallHandComputed) {
  const TaskSpec& t = get_task("dot_product");
  Args a = args_for({1, 2, 3}, {4, -5, 6});
  t.reference(Shape{{"N", 3}}, Precision::fp32, a);
  EXPECT_DOUBLE_EQ(a[0].data[0], 4.0 - 10.0 + 18.0);
}

TEST(DotProduct, SingleElement) {
  const TaskSpec& t = get_task("dot_product");
  Args a = args_for({-0.5}, {0.25});
  t.reference(Shape{{"N", 1}}, Precision::bf16, a);
  EXPECT_DOUBLE_EQ(a[0].data[0], -0.125);
}

TEST(DotProduct, SpansSeveralChunks) {
  // 200000 elements cross the reference's 65536-element chunks: sum of i * 1 for i < n.
  const TaskSpec& t = get_task("dot_product");
  const std::size_t n = 200000;
  std::vector<double> x(n), y(n, 1.0);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<double>(i % 7) - 3.0;  // -3..3, exact
  Args a = args_for(x, y);
  t.reference(Shape{{"N", static_cast<int64_t>(n)}}, Precision::fp32, a);
  double want = 0;
  for (double v : x) want += v;
  EXPECT_DOUBLE_EQ(a[0].data[0], want);
}

TEST(DotProduct, LossIsFloatInBothPrecisions) {
  const TaskSpec& t = get_task("dot_product");
  EXPECT_EQ(t.params[0].elem, Elem::f32);
  EXPECT_EQ(t.params[0].role, Role::accumulate);
  EXPECT_NE(t.signature(Precision::bf16).find("float* loss"), std::string::npos) << t.signature(Precision::bf16);
}

TEST(DotProduct, ToleranceHasASqrtNAndALinearTerm) {
  const TaskSpec& t = get_task("dot_product");
  for (int64_t n : {int64_t{1} << 16, int64_t{1} << 27}) {
    const Tolerance a = t.tolerance(Shape{{"N", n}}, Precision::fp32);
    const double nd = static_cast<double>(n);
    EXPECT_NEAR(a.atol, 1e-4 * std::sqrt(nd) / 3.0 + nd * 0x1.0p-24, 1e-15 * nd);
    EXPECT_EQ(a.rtol, 1e-4);
  }
}

TEST(DotProduct, GeneratedInstanceMatchesDirectSum) {
  const TaskSpec& t = get_task("dot_product");
  const Shape s{{"N", 1000}};
  const Args in = make_inputs(t, s, Precision::bf16, 7);
  const Args e = make_expected(t, s, Precision::bf16, in);
  double want = 0;
  for (std::size_t i = 0; i < 1000; ++i) want += in[1].data[i] * in[2].data[i];
  EXPECT_NEAR(e[0].data[0], want, 1e-12);
  EXPECT_EQ(in[1].data[3], round_to(Precision::bf16, in[1].data[3]));  // inputs arrive bf16-rounded
}

// X and Y are counter draws (set_uniform_inputs: large instances are drawn and checked on the GPU),
// uniform in [-1, 1) from independent keys: products of typical size 1/3 and either sign, which the
// tolerance's model assumes.
TEST(DotProduct, InputsAreIndependentUniformDraws) {
  const TaskSpec& t = get_task("dot_product");
  ASSERT_TRUE(t.uniform_inputs);
  const Shape s{{"N", 65536}};
  const Args in = make_inputs(t, s, Precision::fp32, 3);
  for (std::size_t i : {std::size_t{1}, std::size_t{2}}) mskb_test::expect_fills_uniform_range(t, in, i, -1.0, 1.0);
  double squares = 0, products = 0;
  for (std::size_t k = 0; k < 65536; ++k) {
    squares += in[1].data[k] * in[1].data[k];
    products += in[1].data[k] * in[2].data[k];
  }
  EXPECT_NEAR(squares / 65536.0, 1.0 / 3.0, 0.01);
  EXPECT_LT(std::fabs(products), 6.0 * 256.0 / 3.0);  // independent: ~sqrt(N)/3, not N/3
  EXPECT_EQ(in[0].data.size(), 1u);
}

}  // namespace

// The tolerance covers the honest FP32 orders at every size of every sweep, and still rejects bf16
// accumulation.
TEST(DotProductTolerance, CoversOneSequentialFp32AccumulatorAtEverySize) {
  using namespace mskb::fp32_model;
  const TaskSpec& t = get_task("dot_product");
  // One FP32 accumulator over all N products (a single thread, or one atomicAdd per element), with
  // and without FMA. Its error scales as u N at any N (the partial sums are a random walk), so 2048
  // sums of 2^14 products give the distribution of |error| / (u N) at the large sizes too (the
  // largest, N = 2^27, takes seconds per sum). Their worst is held against atol alone (rtol adds
  // 1e-4 |ref|, ~0.05 u N at N = 2^27).
  constexpr int kN = 1 << 14, kTrials = 2048;
  Rng rng(11);
  double worst = 0;  // max |error| / (u N)
  for (int trial = 0; trial < kTrials; ++trial) {
    Fp32Sum fma_sum, mul_add;
    double exact = 0;
    for (int i = 0; i < kN; ++i) {
      const auto x = static_cast<float>(rng.uniform(-1.0, 1.0)), y = static_cast<float>(rng.uniform(-1.0, 1.0));
      fma_sum.fma(x, y);
      mul_add.mul_add(x, y);
      exact += static_cast<double>(x) * static_cast<double>(y);
    }
    worst = std::max({worst, std::fabs(fma_sum.value - exact), std::fabs(mul_add.value - exact)});
  }
  worst /= kU * kN;
  std::printf("sequential FP32 dot products: worst |error| of %d = %.3f u N\n", kTrials, worst);
  EXPECT_GT(worst, 0.3) << "the simulation is not measuring";
  std::vector<Shape> shapes = t.paper;
  shapes.insert(shapes.end(), t.heldout.begin(), t.heldout.end());
  shapes.insert(shapes.end(), t.large.begin(), t.large.end());
  for (const Shape& s : shapes) {
    const double n = static_cast<double>(s["N"]);
    if (n < kN) continue;  // below 2^14 the linear regime has not set in (and errors are tiny)
    EXPECT_LT(worst * kU * n / t.tolerance(s, Precision::fp32).atol, 0.6) << "N = " << s["N"];
  }
  // The previous tolerance, 1e-4 sqrt(N) / 3 + 1e-4 |ref| (|ref| ~ sqrt(N) / 3), at N = 2^27.
  const double n27 = static_cast<double>(int64_t{1} << 27);
  EXPECT_GT(worst * kU * n27 / (2e-4 * std::sqrt(n27) / 3.0), 2.0);
}

TEST(DotProductTolerance, CoversBlockPartialsAddedByFp32AtomicsAtTheLargestSize) {
  using namespace mskb::fp32_model;
  const TaskSpec& t = get_task("dot_product");
  // The shipped baseline's order at N = 2^27: 2^19 block sums of 256 products (tree-reduced; each
  // ~N(0, (16/3)^2)) added to one float in sequence. The block sums are drawn directly.
  const Shape s{{"N", int64_t{1} << 27}};
  const Tolerance tol = t.tolerance(s, Precision::fp32);
  Rng rng(12);
  std::vector<ErrorSample> samples;
  for (int trial = 0; trial < 8; ++trial) {
    Fp32Sum sum;
    double exact = 0;
    for (int b = 0; b < (1 << 19); ++b) {
      const auto part = static_cast<float>(rng.normal(0.0, 16.0 / 3.0));
      sum.add(part);
      exact += part;
    }
    samples.push_back({sum.value - exact, sum.sd(), tol.atol + tol.rtol * std::fabs(exact)});
  }
  EXPECT_LT(measured_worst(samples), 0.1);
  EXPECT_LT(extrapolated_worst(samples, 1e4), 0.2);
}

TEST(DotProductTolerance, StillRejectsBf16Accumulation) {
  // wrong/bf16_accumulate.cu: each thread adds 16 products in bf16, a bf16 tree per block of 256
  // threads, the block sums go to the float result by atomicAdd. Every paper size has three seeds;
  // the worst of three is several times the tolerance.
  const TaskSpec& t = get_task("dot_product");
  auto bf = [](float x) { return static_cast<float>(round_to(Precision::bf16, x)); };
  for (int64_t n : {int64_t{1} << 16, int64_t{1} << 20}) {
    const Tolerance tol = t.tolerance(Shape{{"N", n}}, Precision::bf16);
    Rng rng(13);
    double worst_ratio = 0;
    for (int trial = 0; trial < 3; ++trial) {
      double exact = 0;
      float loss = 0;
      std::vector<float> s(256);
      for (int64_t blk = 0; blk * 4096 < n; ++blk) {
        for (int th = 0; th < 256; ++th) {
          float acc = 0;
          for (int k = 0; k < 16; ++k) {
            const float x = bf(static_cast<float>(rng.uniform(-1.0, 1.0))), y = bf(static_cast<float>(rng.uniform(-1.0, 1.0)));
            exact += static_cast<double>(x) * static_cast<double>(y);
            acc = bf(acc + bf(x * y));
          }
          s[static_cast<std::size_t>(th)] = acc;
        }
        for (int off = 128; off > 0; off >>= 1)
          for (int th = 0; th < off; ++th) s[static_cast<std::size_t>(th)] = bf(s[static_cast<std::size_t>(th)] + s[static_cast<std::size_t>(th + off)]);
        loss += s[0];
      }
      worst_ratio = std::max(worst_ratio, std::fabs(loss - exact) / (tol.atol + tol.rtol * std::fabs(exact)));
    }
    std::printf("bf16 accumulation, N = %lld: worst of 3 is %.1fx the tolerance\n", static_cast<long long>(n), worst_ratio);
    EXPECT_GT(worst_ratio, 3.0) << "N = " << n;
  }
}
