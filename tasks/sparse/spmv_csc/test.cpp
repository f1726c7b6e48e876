// Hand-checked cases for the spmv_csc FP64 reference and generator.
#include <gtest/gtest.h>

#include <algorithm>

#include "../common/matrix_check.hpp"
#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"
#include "support/one_cpu.hpp"

using namespace mskb;

namespace {

Args csc_args(int rows, int cols, const std::vector<double>& v, const std::vector<double>& r, const std::vector<double>& off,
              const std::vector<double>& x) {
  const TaskSpec& t = get_task("spmv_csc");
  Args a(t.params.size());
  a[0].value = rows;
  a[1].value = cols;
  a[2].data.assign(v.begin(), v.end());
  a[3].data.assign(r.begin(), r.end());
  a[4].data.assign(off.begin(), off.end());
  a[5].data.assign(x.begin(), x.end());
  a[6].data.assign(static_cast<std::size_t>(rows), 0.0);
  return a;
}

TEST(SpmvCsc, ColumnsScatterIntoRows) {
  // A = [[1, 0, 3], [2, 0, -1]]: column 0 = {1, 2}, column 1 empty, column 2 = {3, -1}; x = [2, 5, 0.5].
  const TaskSpec& t = get_task("spmv_csc");
  Args a = csc_args(2, 3, {1, 2, 3, -1}, {0, 1, 0, 1}, {0, 2, 2, 4}, {2, 5, 0.5});
  t.reference(Shape{{"rows", 2}, {"cols", 3}}, Precision::fp32, a);
  EXPECT_DOUBLE_EQ(a[6].data[0], 1.0 * 2 + 3.0 * 0.5);
  EXPECT_DOUBLE_EQ(a[6].data[1], 2.0 * 2 - 1.0 * 0.5);
}

TEST(SpmvCsc, EmptyRowStaysZero) {
  // 3 x 1 matrix with a single entry in row 2.
  const TaskSpec& t = get_task("spmv_csc");
  Args a = csc_args(3, 1, {0.5}, {2}, {0, 1}, {-3});
  t.reference(Shape{{"rows", 3}, {"cols", 1}}, Precision::bf16, a);
  EXPECT_DOUBLE_EQ(a[6].data[0], 0.0);
  EXPECT_DOUBLE_EQ(a[6].data[1], 0.0);
  EXPECT_DOUBLE_EQ(a[6].data[2], -1.5);
}

TEST(SpmvCsc, GeneratorSortedColumnsAndSkew) {
  const TaskSpec& t = get_task("spmv_csc");
  for (const Shape& s : {Shape{{"rows", 2048}, {"cols", 1024}}, Shape{{"rows", 2048}, {"cols", 5000}, {"skew", 1}}}) {
    const Args a = make_inputs(t, s, Precision::bf16, 2);
    const auto rows = static_cast<int64_t>(a[0].value), cols = static_cast<int64_t>(a[1].value);
    ASSERT_EQ(a[4].data.size(), static_cast<std::size_t>(cols) + 1);
    EXPECT_EQ(a[4].data.front(), 0.0);
    EXPECT_EQ(static_cast<uint64_t>(a[4].data.back()), t.complexity(s));
    int64_t longest = 0, empty = 0;
    for (int64_t j = 0; j < cols; ++j) {
      const auto lo = static_cast<int64_t>(a[4].data[static_cast<std::size_t>(j)]);
      const auto hi = static_cast<int64_t>(a[4].data[static_cast<std::size_t>(j) + 1]);
      longest = std::max(longest, hi - lo);
      empty += hi == lo;
      for (int64_t p = lo; p < hi; ++p) {
        ASSERT_GE(a[3].data[static_cast<std::size_t>(p)], 0);
        ASSERT_LT(a[3].data[static_cast<std::size_t>(p)], static_cast<double>(rows));
        if (p > lo) {
          ASSERT_LT(a[3].data[static_cast<std::size_t>(p) - 1], a[3].data[static_cast<std::size_t>(p)]);
        }
      }
    }
    if (s.has("skew")) {
      EXPECT_EQ(longest, rows) << "completely dense columns";
      EXPECT_GT(empty, 0) << "and empty ones";
    } else {
      EXPECT_EQ(longest, 20);
      EXPECT_EQ(empty, 0);
    }
  }
}

TEST(SpmvCsc, ShippedMatrixMarketFiles) { sparse_test::check_shipped_matrices("spmv_csc", 5, 6); }

}  // namespace

TEST(SpmvCscParallel, SameInputsAndReferenceOnOneCpu) {
  // Lines are filled in parallel blocks from per-line streams: a child pinned to one CPU must
  // reproduce the instance bit for bit.
  const TaskSpec& t = get_task("spmv_csc");
  for (const Shape& s : {Shape{{"rows", 2048}, {"cols", 65536}, {"skew", 1}}}) {
    EXPECT_EQ(differences_on_one_cpu(t, s), 0u) << s.str();
  }
}
