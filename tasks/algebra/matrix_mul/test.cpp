// Hand-checked cases for the matrix_mul FP64 reference (row-major C = A * B).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "support/fp32_error_model.hpp"
#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

Args run(int64_t m, int64_t n, int64_t k, const std::vector<double>& A, const std::vector<double>& B) {
  const TaskSpec& t = get_task("matrix_mul");
  Args a(t.params.size());
  a[0].data.assign(A.begin(), A.end());
  a[1].data.assign(B.begin(), B.end());
  a[2].data.assign(static_cast<std::size_t>(m * n), 0.0);
  a[3].value = static_cast<double>(m);
  a[4].value = static_cast<double>(n);
  a[5].value = static_cast<double>(k);
  t.reference(Shape{{"M", m}, {"N", n}, {"K", k}}, Precision::fp32, a);
  return a;
}

TEST(MatrixMul, TwoByThreeTimesThreeByTwo) {
  // [1 2 3; 4 5 6] * [7 8; 9 10; 11 12] = [58 64; 139 154]
  const Args a = run(2, 2, 3, {1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12});
  EXPECT_EQ(a[2].data, (std::vector<double>{58, 64, 139, 154}));
}

TEST(MatrixMul, RowMajorNonSquare) {
  // A 1x2, B 2x3: [1 -1] * [1 2 3; 4 5 6] = [-3 -3 -3]
  const Args a = run(1, 3, 2, {1, -1}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(a[2].data, (std::vector<double>{-3, -3, -3}));
}

TEST(MatrixMul, KOneIsAnOuterProduct) {
  const Args a = run(3, 2, 1, {1, 2, 3}, {10, -1});
  EXPECT_EQ(a[2].data, (std::vector<double>{10, -1, 20, -2, 30, -3}));
}

TEST(MatrixMul, SingleElement) {
  const Args a = run(1, 1, 1, {0.5}, {-4});
  EXPECT_EQ(a[2].data, (std::vector<double>{-2}));
}

TEST(MatrixMul, IdentityAcrossTileBoundaries) {
  // 300 x 300 identity times B (300 x 257): the reference's 16-row, 256-column, 128-K tiles all have tails.
  const int64_t n = 300, w = 257;
  std::vector<double> I(static_cast<std::size_t>(n * n), 0.0), B(static_cast<std::size_t>(n * w));
  for (int64_t i = 0; i < n; ++i) I[static_cast<std::size_t>(i * n + i)] = 1.0;
  for (std::size_t i = 0; i < B.size(); ++i) B[i] = static_cast<double>(i % 13) - 6.0;
  const Args a = run(n, w, n, I, B);
  EXPECT_EQ(a[2].data, B);
}

TEST(MatrixMul, MatchesTripleLoopOnGeneratedInputs) {
  const TaskSpec& t = get_task("matrix_mul");
  const Shape s{{"M", 17}, {"N", 300}, {"K", 130}};
  const Args in = make_inputs(t, s, Precision::bf16, 3);
  const Args e = make_expected(t, s, Precision::bf16, in);
  for (int64_t i = 0; i < 17; ++i)
    for (int64_t j = 0; j < 300; ++j) {
      double want = 0;
      for (int64_t k = 0; k < 130; ++k) want += in[0].data[static_cast<std::size_t>(i * 130 + k)] * in[1].data[static_cast<std::size_t>(k * 300 + j)];
      ASSERT_NEAR(e[2].data[static_cast<std::size_t>(i * 300 + j)], want, 1e-12) << i << "," << j;
    }
}

TEST(MatrixMul, Fp32ToleranceRejectsTf32SizedErrors) {
  const TaskSpec& t = get_task("matrix_mul");
  const Tolerance tol = t.tolerance(t.paper.front(), Precision::fp32);
  // |C| ~ sqrt(4096)/3 ~ 21; TF32 errs by ~1e-2, FP32 by ~5e-5.
  EXPECT_LT(tol.atol + tol.rtol * 21.0, 1e-3);
  EXPECT_GT(tol.atol, 2e-4);
  EXPECT_EQ(t.complexity(t.paper.back()), uint64_t{16384} * 2048 * 4096);
}

}  // namespace

// The FP32 tolerance covers one sequential FP32 accumulator per output (the naive kernel: a thread per
// element of C, FMA or not) over the 1.3e8 outputs of the largest shape (K = 8192), with margin. The
// bar is 0.5 of the tolerance, not 0.6: on the H200 conv_2d's worst output was 1.086 of a tolerance
// where this model expected 0.80 (mskb/fp32_error_model.hpp); the previous tolerance here was at 0.57.
TEST(MatrixMulTolerance, CoversSequentialFp32DotProductsAtTheLargestShape) {
  using namespace mskb::fp32_model;
  const TaskSpec& t = get_task("matrix_mul");
  const Shape s{{"M", 16384}, {"N", 8192}, {"K", 8192}};
  ASSERT_NE(std::find(t.large.begin(), t.large.end(), s), t.large.end());
  const Tolerance tol = t.tolerance(s, Precision::fp32);
  const Tolerance old{2e-5 * std::sqrt(8192.0) / 3.0, 1e-5};  // the previous tolerance
  constexpr int kK = 8192, kTrials = 2048;
  Rng rng(51);
  std::vector<ErrorSample> now, before;
  for (int trial = 0; trial < kTrials; ++trial) {
    Fp32Sum fma_sum, mul_add;
    double exact = 0;
    for (int k = 0; k < kK; ++k) {
      const auto a = static_cast<float>(rng.uniform(-1.0, 1.0)), b = static_cast<float>(rng.uniform(-1.0, 1.0));
      fma_sum.fma(a, b);
      mul_add.mul_add(a, b);
      exact += static_cast<double>(a) * static_cast<double>(b);
    }
    for (const Fp32Sum& f : {fma_sum, mul_add}) {
      now.push_back({f.value - exact, f.sd(), tol.atol + tol.rtol * std::fabs(exact)});
      before.push_back({f.value - exact, f.sd(), old.atol + old.rtol * std::fabs(exact)});
    }
  }
  const double outputs = 16384.0 * 8192.0;
  std::printf("sequential FP32 dot products, K = 8192: worst of %zu %.3f, expected worst over %.2g outputs %.3f of the "
              "tolerance (previous tolerance %.3f)\n",
              now.size(), measured_worst(now), outputs, extrapolated_worst(now, outputs), extrapolated_worst(before, outputs));
  EXPECT_LT(measured_worst(now), 0.5);
  EXPECT_LT(extrapolated_worst(now, outputs), 0.5);
  EXPECT_GT(extrapolated_worst(before, outputs), 0.5);
}
