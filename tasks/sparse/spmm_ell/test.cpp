// Hand-checked cases for the spmm_ell FP64 reference and generator.
#include <gtest/gtest.h>

#include "../common/matrix_check.hpp"
#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

Args ell_args(int rows, int width, int K, const std::vector<double>& v, const std::vector<double>& c,
              const std::vector<double>& X) {
  const TaskSpec& t = get_task("spmm_ell");
  Args a(t.params.size());
  a[0].value = rows;
  a[1].value = width;
  a[2].value = K;
  a[3].data.assign(v.begin(), v.end());
  a[4].data.assign(c.begin(), c.end());
  a[5].data.assign(X.begin(), X.end());
  a[6].data.assign(static_cast<std::size_t>(rows * K), -99.0);  // overwritten, whatever it held
  return a;
}

TEST(SpmmEll, PaddingAnywhereIsSkipped) {
  // 2 rows x width 3: row 0 = padding, (col 2, 2), (col 0, 1); row 1 = padding only.
  // X (3 x 2) = [[1, 2], [3, 4], [5, 6]].
  const TaskSpec& t = get_task("spmm_ell");
  Args a = ell_args(2, 3, 2, {0, 2, 1, 0, 0, 0}, {-1, 2, 0, -1, -1, -1}, {1, 2, 3, 4, 5, 6});
  t.reference(Shape{{"rows", 2}, {"cols", 3}, {"K", 2}}, Precision::fp32, a);
  const std::vector<double> want = {10 + 1, 12 + 2, 0, 0};
  EXPECT_EQ(a[6].data, want);
}

TEST(SpmmEll, OneByOne) {
  const TaskSpec& t = get_task("spmm_ell");
  Args a = ell_args(1, 1, 1, {-0.25}, {0}, {8});
  t.reference(Shape{{"rows", 1}, {"cols", 1}, {"K", 1}}, Precision::bf16, a);
  EXPECT_DOUBLE_EQ(a[6].data[0], -2.0);
}

TEST(SpmmEll, GeneratorSizesAndScatteredPadding) {
  const TaskSpec& t = get_task("spmm_ell");
  const Shape s{{"rows", 777}, {"cols", 20000}, {"K", 48}, {"skew", 1}};
  const Args a = make_inputs(t, s, Precision::fp32, 1);
  const auto rows = static_cast<int64_t>(a[0].value), width = static_cast<int64_t>(a[1].value);
  EXPECT_EQ(width, 8 * 200);
  EXPECT_EQ(static_cast<uint64_t>(rows * width * 48), t.complexity(s));
  EXPECT_EQ(a[5].data.size(), 20000u * 48u);
  int64_t after_padding = 0;
  for (int64_t i = 0; i < rows; ++i) {
    bool padded = false;
    for (int64_t q = i * width; q < (i + 1) * width; ++q) {
      if (a[4].data[static_cast<std::size_t>(q)] < 0)
        padded = true;
      else
        after_padding += padded;
    }
  }
  EXPECT_GT(after_padding, 0);
}

TEST(SpmmEll, ShippedMatrixMarketFiles) { sparse_test::check_shipped_matrices("spmm_ell", 5, 6); }

}  // namespace
