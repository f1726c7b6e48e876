// Hand-checked cases for the spmm_csr FP64 reference and generator.
#include <gtest/gtest.h>

#include "../common/matrix_check.hpp"
#include "mskb/instance.hpp"
#include "mskb/registry.hpp"

using namespace mskb;

namespace {

Args csr_args(int rows, int K, const std::vector<double>& v, const std::vector<double>& c, const std::vector<double>& off,
              const std::vector<double>& X) {
  const TaskSpec& t = get_task("spmm_csr");
  Args a(t.params.size());
  a[0].value = rows;
  a[1].value = K;
  a[2].data = v;
  a[3].data = c;
  a[4].data = off;
  a[5].data = X;
  a[6].data.assign(static_cast<std::size_t>(rows * K), -99.0);  // overwritten, whatever it held
  return a;
}

TEST(SpmmCsr, SmallHandComputed) {
  // A (3 x 3) = [[1, 0, 2], [0, 0, 0], [0, -1, 0]] (row 1 empty); X (3 x 2) = [[1, 2], [3, 4], [5, 6]].
  const TaskSpec& t = get_task("spmm_csr");
  Args a = csr_args(3, 2, {1, 2, -1}, {0, 2, 1}, {0, 2, 2, 3}, {1, 2, 3, 4, 5, 6});
  t.reference(Shape{{"rows", 3}, {"cols", 3}, {"K", 2}}, Precision::fp32, a);
  const std::vector<double> want = {1 + 10, 2 + 12, 0, 0, -3, -4};
  EXPECT_EQ(a[6].data, want);
}

TEST(SpmmCsr, KEqualsOneIsSpmv) {
  const TaskSpec& t = get_task("spmm_csr");
  Args a = csr_args(2, 1, {0.5, 0.25, -2}, {0, 1, 1}, {0, 2, 3}, {4, 8});
  t.reference(Shape{{"rows", 2}, {"cols", 2}, {"K", 1}}, Precision::bf16, a);
  EXPECT_DOUBLE_EQ(a[6].data[0], 0.5 * 4 + 0.25 * 8);
  EXPECT_DOUBLE_EQ(a[6].data[1], -2.0 * 8);
}

TEST(SpmmCsr, GeneratorSizes) {
  const TaskSpec& t = get_task("spmm_csr");
  const Shape s{{"rows", 1000}, {"cols", 3000}, {"K", 100}};
  const Args a = make_inputs(t, s, Precision::fp32, 1);
  EXPECT_EQ(a[4].data.size(), 1001u);
  EXPECT_EQ(static_cast<uint64_t>(a[4].data.back()) * 100, t.complexity(s));
  EXPECT_EQ(a[5].data.size(), 3000u * 100u);
  EXPECT_EQ(a[6].data.size(), 1000u * 100u);
}

TEST(SpmmCsr, ShippedMatrixMarketFiles) { sparse_test::check_shipped_matrices("spmm_csr", 5, 6); }

}  // namespace
