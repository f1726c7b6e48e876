// Hand-checked cases for the matrix_mul FP64 reference (row-major C = A * B).
#include <gtest/gtest.h>

#include <cmath>

#include "mskb/instance.hpp"
#include "mskb/registry.hpp"

using namespace mskb;

namespace {

Args run(int64_t m, int64_t n, int64_t k, const std::vector<double>& A, const std::vector<double>& B) {
  const TaskSpec& t = get_task("matrix_mul");
  Args a(t.params.size());
  a[0].data = A;
  a[1].data = B;
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
