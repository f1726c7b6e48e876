// Hand-checked cases for the spmm_coo FP64 reference.
#include <gtest/gtest.h>

#include "../common/matrix_check.hpp"
#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

Args coo_args(int rows, int K, const std::vector<double>& r, const std::vector<double>& c, const std::vector<double>& v,
              const std::vector<double>& X) {
  const TaskSpec& t = get_task("spmm_coo");
  Args a(t.params.size());
  a[0].value = rows;
  a[1].value = static_cast<double>(v.size());
  a[2].value = K;
  a[3].data.assign(v.begin(), v.end());
  a[4].data.assign(r.begin(), r.end());
  a[5].data.assign(c.begin(), c.end());
  a[6].data.assign(X.begin(), X.end());
  a[7].data.assign(static_cast<std::size_t>(rows * K), 0.0);
  return a;
}

TEST(SpmmCoo, UnsortedEntriesAccumulatePerRow) {
  // A (2 x 3) = [[1, 0, 2], [0, -1, 0]] given as (1,1,-1), (0,2,2), (0,0,1); X (3 x 2) = [[1, 2], [3, 4], [5, 6]].
  const TaskSpec& t = get_task("spmm_coo");
  Args a = coo_args(2, 2, {1, 0, 0}, {1, 2, 0}, {-1, 2, 1}, {1, 2, 3, 4, 5, 6});
  t.reference(Shape{{"rows", 2}, {"cols", 3}, {"K", 2}}, Precision::fp32, a);
  const std::vector<double> want = {1 + 10, 2 + 12, -3, -4};
  EXPECT_EQ(a[7].data, want);
}

TEST(SpmmCoo, SingleEntry) {
  const TaskSpec& t = get_task("spmm_coo");
  Args a = coo_args(1, 3, {0}, {0}, {-0.5}, {2, 4, -8});
  t.reference(Shape{{"rows", 1}, {"cols", 1}, {"K", 3}}, Precision::bf16, a);
  const std::vector<double> want = {-1, -2, 4};
  EXPECT_EQ(a[7].data, want);
}

TEST(SpmmCoo, GeneratorCoversRowsFirst) {
  const TaskSpec& t = get_task("spmm_coo");
  const Shape s{{"rows", 256}, {"cols", 2048}, {"K", 4096}};
  const Args a = make_inputs(t, s, Precision::bf16, 1);
  EXPECT_EQ(static_cast<uint64_t>(a[1].value) * 4096, t.complexity(s));
  for (int i = 0; i < 256; ++i) ASSERT_EQ(a[4].data[static_cast<std::size_t>(i)], i);
  EXPECT_EQ(a[6].data.size(), 2048u * 4096u);
}

TEST(SpmmCoo, ShippedMatrixMarketFiles) { sparse_test::check_shipped_matrices("spmm_coo", 6, 7); }

}  // namespace
