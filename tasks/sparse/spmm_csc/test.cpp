// Hand-checked cases for the spmm_csc FP64 reference.
#include <gtest/gtest.h>

#include "../common/matrix_check.hpp"
#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

Args csc_args(int rows, int cols, int K, const std::vector<double>& v, const std::vector<double>& r,
              const std::vector<double>& off, const std::vector<double>& X) {
  const TaskSpec& t = get_task("spmm_csc");
  Args a(t.params.size());
  a[0].value = rows;
  a[1].value = cols;
  a[2].value = K;
  a[3].data.assign(v.begin(), v.end());
  a[4].data.assign(r.begin(), r.end());
  a[5].data.assign(off.begin(), off.end());
  a[6].data.assign(X.begin(), X.end());
  a[7].data.assign(static_cast<std::size_t>(rows * K), 0.0);
  return a;
}

TEST(SpmmCsc, ColumnsScatterIntoRows) {
  // A (2 x 3) = [[1, 0, 2], [-1, 0, 0]]: column 0 = {1, -1}, column 1 empty, column 2 = {2};
  // X (3 x 2) = [[1, 2], [3, 4], [5, 6]].
  const TaskSpec& t = get_task("spmm_csc");
  Args a = csc_args(2, 3, 2, {1, -1, 2}, {0, 1, 0}, {0, 2, 2, 3}, {1, 2, 3, 4, 5, 6});
  t.reference(Shape{{"rows", 2}, {"cols", 3}, {"K", 2}}, Precision::fp32, a);
  const std::vector<double> want = {1 + 10, 2 + 12, -1, -2};
  EXPECT_EQ(a[7].data, want);
}

TEST(SpmmCsc, EmptyRowsStayZero) {
  // 3 x 1 matrix with one entry in row 1, K = 2.
  const TaskSpec& t = get_task("spmm_csc");
  Args a = csc_args(3, 1, 2, {0.5}, {1}, {0, 1}, {4, -6});
  t.reference(Shape{{"rows", 3}, {"cols", 1}, {"K", 2}}, Precision::bf16, a);
  const std::vector<double> want = {0, 0, 2, -3, 0, 0};
  EXPECT_EQ(a[7].data, want);
}

TEST(SpmmCsc, GeneratorSizes) {
  const TaskSpec& t = get_task("spmm_csc");
  const Shape s{{"rows", 3001}, {"cols", 777}, {"K", 33}};
  const Args a = make_inputs(t, s, Precision::fp32, 2);
  EXPECT_EQ(a[5].data.size(), 778u);
  EXPECT_EQ(static_cast<uint64_t>(a[5].data.back()) * 33, t.complexity(s));
  EXPECT_EQ(a[6].data.size(), 777u * 33u);
  EXPECT_EQ(a[7].data.size(), 3001u * 33u);
}

TEST(SpmmCsc, ShippedMatrixMarketFiles) { sparse_test::check_shipped_matrices("spmm_csc", 6, 7); }

}  // namespace
