// Hand-checked cases for the spmv_csr FP64 reference and its generators.
#include <gtest/gtest.h>

#include <cmath>

#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

std::vector<double> run(int64_t rows, const std::vector<double>& vals, const std::vector<double>& cols,
                        const std::vector<double>& offsets, const std::vector<double>& x) {
  const TaskSpec& t = get_task("spmv_csr");
  Args a(t.params.size());
  a[0].value = static_cast<double>(rows);
  a[1].data = vals;
  a[2].data = cols;
  a[3].data = offsets;
  a[4].data = x;
  a[5].data.assign(static_cast<std::size_t>(rows), -7.0);  // must be overwritten
  t.reference(Shape{{"rows", rows}, {"cols", static_cast<int64_t>(x.size())}}, Precision::fp32, a);
  return a[5].data;
}

TEST(SpmvCsr, ThreeByThreeWithAnEmptyRow) {
  // A = [1 0 2; 0 0 0; 0 3 -1], x = [1, 2, 3] -> y = [7, 0, 3]
  const auto y = run(3, {1, 2, 3, -1}, {0, 2, 1, 2}, {0, 2, 2, 4}, {1, 2, 3});
  EXPECT_EQ(y, (std::vector<double>{7, 0, 3}));
}

TEST(SpmvCsr, SingleEntry) {
  const auto y = run(1, {-0.5}, {0}, {0, 1}, {4});
  EXPECT_EQ(y, (std::vector<double>{-2}));
}

TEST(SpmvCsr, DenseRow) {
  // One row holding every column: y = sum_j (j+1) * x_j with x_j = 1.
  std::vector<double> vals, cols;
  for (int j = 0; j < 5; ++j) {
    vals.push_back(j + 1);
    cols.push_back(j);
  }
  const auto y = run(2, vals, cols, {0, 5, 5}, {1, 1, 1, 1, 1});
  EXPECT_EQ(y, (std::vector<double>{15, 0}));
}

void check_structure(const Shape& s, bool expect_empty_rows) {
  const TaskSpec& t = get_task("spmv_csr");
  const Args a = make_inputs(t, s, Precision::fp32, 1);
  const int64_t rows = s["rows"], cols = s["cols"];
  ASSERT_EQ(a[3].data.size(), static_cast<std::size_t>(rows + 1));
  EXPECT_EQ(a[3].data.front(), 0.0);
  const auto nnz = static_cast<int64_t>(a[3].data.back());
  EXPECT_EQ(static_cast<uint64_t>(nnz), t.complexity(s)) << "complexity must be the exact nnz";
  EXPECT_EQ(a[1].data.size(), static_cast<std::size_t>(nnz));
  EXPECT_EQ(a[4].data.size(), static_cast<std::size_t>(cols));
  int64_t empty = 0, longest = 0;
  for (int64_t i = 0; i < rows; ++i) {
    const auto b = static_cast<int64_t>(a[3].data[static_cast<std::size_t>(i)]), e = static_cast<int64_t>(a[3].data[static_cast<std::size_t>(i) + 1]);
    ASSERT_LE(b, e);
    empty += b == e;
    longest = std::max(longest, e - b);
    for (int64_t p = b; p < e; ++p) {
      const double c = a[2].data[static_cast<std::size_t>(p)];
      ASSERT_GE(c, 0);
      ASSERT_LT(c, static_cast<double>(cols));
      if (p > b) {
        ASSERT_LT(a[2].data[static_cast<std::size_t>(p) - 1], c) << "indices sorted, no duplicates";
      }
    }
  }
  EXPECT_EQ(empty > 0, expect_empty_rows) << s.str();
  if (expect_empty_rows) {
    EXPECT_EQ(longest, cols) << "skewed matrices have completely dense rows";
  } else {
    EXPECT_EQ(longest, std::max<int64_t>(1, static_cast<int64_t>(std::llround(0.01 * static_cast<double>(cols)))));
  }
}

TEST(SpmvCsr, PaperMatricesHaveTwentyEntriesPerRow) { check_structure(Shape{{"rows", 1024}, {"cols", 2048}}, false); }
TEST(SpmvCsr, SkewedMatricesHaveEmptyAndDenseRows) {
  check_structure(Shape{{"rows", 4097}, {"cols", 1500}, {"skew", 1}}, true);
}

TEST(SpmvCsr, GeneratedInstanceMatchesDirectSum) {
  const TaskSpec& t = get_task("spmv_csr");
  const Shape s{{"rows", 999}, {"cols", 3001}};
  const Args in = make_inputs(t, s, Precision::bf16, 2);
  const Args e = make_expected(t, s, Precision::bf16, in);
  for (std::size_t i = 0; i < 999; ++i) {
    double want = 0;
    for (auto p = static_cast<std::size_t>(in[3].data[i]); p < static_cast<std::size_t>(in[3].data[i + 1]); ++p)
      want += in[1].data[p] * in[4].data[static_cast<std::size_t>(in[2].data[p])];
    ASSERT_NEAR(e[5].data[i], want, 1e-12) << i;
  }
}

}  // namespace
