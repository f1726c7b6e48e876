// Hand-checked cases for the spmv_ell FP64 reference and generator.
#include <gtest/gtest.h>

#include "../common/matrix_check.hpp"
#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"
#include "support/one_cpu.hpp"

using namespace mskb;

namespace {

Args ell_args(int rows, int width, const std::vector<double>& v, const std::vector<double>& c, const std::vector<double>& x) {
  const TaskSpec& t = get_task("spmv_ell");
  Args a(t.params.size());
  a[0].value = rows;
  a[1].value = width;
  a[2].data.assign(v.begin(), v.end());
  a[3].data.assign(c.begin(), c.end());
  a[4].data.assign(x.begin(), x.end());
  a[5].data.assign(static_cast<std::size_t>(rows), 0.0);
  return a;
}

TEST(SpmvEll, PaddingAnywhereIsSkipped) {
  // 3 rows x width 3. Row 0: entries at slots 0 and 2 with padding between; row 1: padding only;
  // row 2: padding first, then one entry. x = [1, -2, 4].
  const TaskSpec& t = get_task("spmv_ell");
  Args a = ell_args(3, 3, {2, 0, 0.5, 0, 0, 0, 0, 0, -1}, {0, -1, 2, -1, -1, -1, -1, -1, 1}, {1, -2, 4});
  t.reference(Shape{{"rows", 3}, {"cols", 3}}, Precision::fp32, a);
  EXPECT_DOUBLE_EQ(a[5].data[0], 2.0 * 1 + 0.5 * 4);
  EXPECT_DOUBLE_EQ(a[5].data[1], 0.0);
  EXPECT_DOUBLE_EQ(a[5].data[2], -1.0 * -2);
}

TEST(SpmvEll, FullRowNoPadding) {
  const TaskSpec& t = get_task("spmv_ell");
  Args a = ell_args(1, 2, {0.25, -0.75}, {1, 0}, {8, 4});
  t.reference(Shape{{"rows", 1}, {"cols", 2}}, Precision::bf16, a);
  EXPECT_DOUBLE_EQ(a[5].data[0], 0.25 * 4 - 0.75 * 8);
}

TEST(SpmvEll, GeneratorPaddingLayout) {
  const TaskSpec& t = get_task("spmv_ell");
  for (const Shape& s : {Shape{{"rows", 2048}, {"cols", 2048}}, Shape{{"rows", 2048}, {"cols", 5000}, {"skew", 1}}}) {
    const Args a = make_inputs(t, s, Precision::fp32, 3);
    const auto rows = static_cast<int64_t>(a[0].value), width = static_cast<int64_t>(a[1].value);
    ASSERT_EQ(static_cast<uint64_t>(rows * width), t.complexity(s));
    int64_t padding = 0, entry_after_padding = 0, longest = 0;
    for (int64_t i = 0; i < rows; ++i) {
      bool seen_padding = false;
      int64_t n = 0, last = -1;
      for (int64_t q = i * width; q < (i + 1) * width; ++q) {
        const double c = a[3].data[static_cast<std::size_t>(q)];
        if (c < 0) {
          ASSERT_EQ(c, -1.0);
          ASSERT_EQ(a[2].data[static_cast<std::size_t>(q)], 0.0) << "padding value";
          ++padding;
          seen_padding = true;
          continue;
        }
        ASSERT_LT(c, static_cast<double>(s["cols"]));
        ASSERT_GT(c, static_cast<double>(last)) << "columns ascend within a row";
        last = static_cast<int64_t>(c);
        entry_after_padding += seen_padding;
        ++n;
      }
      longest = std::max(longest, n);
    }
    EXPECT_GT(padding, 0);
    EXPECT_EQ(longest, width);
    if (s.has("skew"))
      EXPECT_GT(entry_after_padding, 0) << "skewed ELL scatters its padding";
    else
      EXPECT_EQ(entry_after_padding, 0) << "paper ELL pads at the row ends";
  }
}

TEST(SpmvEll, ShippedMatrixMarketFiles) { sparse_test::check_shipped_matrices("spmv_ell", 4, 5); }

}  // namespace

TEST(SpmvEllParallel, SameInputsAndReferenceOnOneCpu) {
  // Lines are filled in parallel blocks from per-line streams: a child pinned to one CPU must
  // reproduce the instance bit for bit.
  const TaskSpec& t = get_task("spmv_ell");
  for (const Shape& s : {Shape{{"rows", 20000}, {"cols", 2048}}, Shape{{"rows", 8192}, {"cols", 2048}, {"skew", 1}}}) {
    EXPECT_EQ(differences_on_one_cpu(t, s), 0u) << s.str();
  }
}
