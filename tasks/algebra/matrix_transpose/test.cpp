// Hand-checked cases for the matrix_transpose reference.
#include <gtest/gtest.h>

#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

Args run(int64_t m, int64_t n, const std::vector<double>& A) {
  const TaskSpec& t = get_task("matrix_transpose");
  Args a(4);
  a[0].data.assign(A.begin(), A.end());
  a[1].data.assign(A.size(), 0.0);
  a[2].value = static_cast<double>(m);
  a[3].value = static_cast<double>(n);
  t.reference({{"M", m}, {"N", n}}, Precision::fp32, a);
  return a;
}

TEST(MatrixTranspose, TwoByThree) {
  // [1 2 3; 4 5 6]^T = [1 4; 2 5; 3 6]
  EXPECT_EQ(run(2, 3, {1, 2, 3, 4, 5, 6})[1].data, (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

TEST(MatrixTranspose, RowAndColumnVectors) {
  EXPECT_EQ(run(1, 4, {1, 2, 3, 4})[1].data, (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(run(4, 1, {1, 2, 3, 4})[1].data, (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(run(1, 1, {-7})[1].data, (std::vector<double>{-7}));
}

TEST(MatrixTranspose, AcrossReferenceTiles) {
  // 70 x 130 crosses the reference's 64 x 64 tiles in both directions.
  const int64_t m = 70, n = 130;
  std::vector<double> A(static_cast<std::size_t>(m * n));
  for (std::size_t k = 0; k < A.size(); ++k) A[k] = static_cast<double>(k);
  const Args a = run(m, n, A);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) ASSERT_EQ(a[1].data[static_cast<std::size_t>(j * m + i)], static_cast<double>(i * n + j));
}

}  // namespace
