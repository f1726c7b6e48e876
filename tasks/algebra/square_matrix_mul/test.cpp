// Hand-checked cases for the square_matrix_mul FP64 reference and its tolerance.
#include <gtest/gtest.h>

#include <cmath>

#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

Args run(int64_t m, const std::vector<double>& A, const std::vector<double>& B) {
  const TaskSpec& t = get_task("square_matrix_mul");
  Args a(4);
  a[0].data.assign(A.begin(), A.end());
  a[1].data.assign(B.begin(), B.end());
  a[2].data.assign(static_cast<std::size_t>(m * m), 0.0);
  a[3].value = static_cast<double>(m);
  t.reference({{"M", m}}, Precision::fp32, a);
  return a;
}

TEST(SquareMatrixMul, TwoByTwo) {
  // [1 2; 3 4] * [5 6; 7 8] = [19 22; 43 50]
  EXPECT_EQ(run(2, {1, 2, 3, 4}, {5, 6, 7, 8})[2].data, (std::vector<double>{19, 22, 43, 50}));
}

TEST(SquareMatrixMul, OneByOneAndNonCommuting) {
  EXPECT_EQ(run(1, {-3}, {0.5})[2].data, (std::vector<double>{-1.5}));
  // B*A differs from A*B: [5 6; 7 8] * [1 2; 3 4] = [23 34; 31 46]
  EXPECT_EQ(run(2, {5, 6, 7, 8}, {1, 2, 3, 4})[2].data, (std::vector<double>{23, 34, 31, 46}));
}

TEST(SquareMatrixMul, PermutationAcrossReferenceTiles) {
  // A = cyclic shift permutation (row i has a 1 in column (i+1) % m): (A*B)[i] = B[(i+1) % m]. m = 300
  // crosses the reference's 16-row, 256-column and 128-k tiles.
  const int64_t m = 300;
  std::vector<double> P(static_cast<std::size_t>(m * m), 0.0), B(static_cast<std::size_t>(m * m));
  for (int64_t i = 0; i < m; ++i) P[static_cast<std::size_t>(i * m + (i + 1) % m)] = 1.0;
  for (std::size_t k = 0; k < B.size(); ++k) B[k] = static_cast<double>(k % 17) - 8.0;
  const Args a = run(m, P, B);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < m; ++j)
      ASSERT_EQ(a[2].data[static_cast<std::size_t>(i * m + j)], B[static_cast<std::size_t>(((i + 1) % m) * m + j)]);
}

TEST(SquareMatrixMul, SequentialFp32PassesTf32Fails) {
  const TaskSpec& t = get_task("square_matrix_mul");
  const Shape s{{"M", 256}};
  const Args in = make_inputs(t, s, Precision::fp32, 1);
  const Args ref = make_expected(t, s, Precision::fp32, in);
  const Tolerance tol = t.tolerance(s, Precision::fp32);
  auto tf32 = [](double x) {  // round to nearest with a 10-bit mantissa
    int e;
    const double f = std::frexp(x, &e);
    return std::ldexp(std::nearbyint(std::ldexp(f, 11)), e - 11);
  };
  int tf32_failures = 0;
  for (int64_t i = 0; i < 256; i += 5)
    for (int64_t j = 0; j < 256; j += 3) {
      float acc = 0.0f, acc_tf32 = 0.0f;
      for (int64_t k = 0; k < 256; ++k) {
        const double a = in[0].data[static_cast<std::size_t>(i * 256 + k)], b = in[1].data[static_cast<std::size_t>(k * 256 + j)];
        acc = std::fmaf(static_cast<float>(a), static_cast<float>(b), acc);
        acc_tf32 = std::fmaf(static_cast<float>(tf32(a)), static_cast<float>(tf32(b)), acc_tf32);
      }
      const double want = ref[2].data[static_cast<std::size_t>(i * 256 + j)];
      EXPECT_LE(std::abs(acc - want), tol.atol + tol.rtol * std::abs(want));
      tf32_failures += std::abs(acc_tf32 - want) > tol.atol + tol.rtol * std::abs(want);
    }
  EXPECT_GT(tf32_failures, 1000);
}

}  // namespace
