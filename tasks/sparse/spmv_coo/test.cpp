// Hand-checked cases for the spmv_coo FP64 reference and generator.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "../common/matrix_check.hpp"
#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"
#include "support/one_cpu.hpp"

using namespace mskb;

namespace {

Args coo_args(int rows, const std::vector<double>& r, const std::vector<double>& c, const std::vector<double>& v,
              const std::vector<double>& x) {
  const TaskSpec& t = get_task("spmv_coo");
  Args a(t.params.size());
  a[0].value = rows;
  a[1].value = static_cast<double>(v.size());
  a[2].data.assign(v.begin(), v.end());
  a[3].data.assign(r.begin(), r.end());
  a[4].data.assign(c.begin(), c.end());
  a[5].data.assign(x.begin(), x.end());
  a[6].data.assign(static_cast<std::size_t>(rows), 0.0);
  return a;
}

TEST(SpmvCoo, UnsortedEntriesSumPerRow) {
  // A = [[1, 0.5, 0], [-1, 0, 2]], entries given out of order; x = [1, 2, 3].
  const TaskSpec& t = get_task("spmv_coo");
  Args a = coo_args(2, {1, 0, 1, 0}, {2, 0, 0, 1}, {2.0, 1.0, -1.0, 0.5}, {1, 2, 3});
  t.reference(Shape{{"rows", 2}, {"cols", 3}}, Precision::fp32, a);
  EXPECT_DOUBLE_EQ(a[6].data[0], 1.0 * 1 + 0.5 * 2);
  EXPECT_DOUBLE_EQ(a[6].data[1], 2.0 * 3 - 1.0 * 1);
}

TEST(SpmvCoo, SingleEntryAndUntouchedRow) {
  // 3 rows, only row 1 has an entry: rows 0 and 2 stay zero.
  const TaskSpec& t = get_task("spmv_coo");
  Args a = coo_args(3, {1}, {0}, {-0.75}, {4});
  t.reference(Shape{{"rows", 3}, {"cols", 1}}, Precision::bf16, a);
  EXPECT_DOUBLE_EQ(a[6].data[0], 0.0);
  EXPECT_DOUBLE_EQ(a[6].data[1], -3.0);
  EXPECT_DOUBLE_EQ(a[6].data[2], 0.0);
}

TEST(SpmvCoo, GeneratorCoversEveryRowFirstThenRandomUniquePairs) {
  const TaskSpec& t = get_task("spmv_coo");
  for (const Shape& s : {Shape{{"rows", 1024}, {"cols", 2048}}, Shape{{"rows", 4097}, {"cols", 1500}, {"skew", 1}}}) {
    const Args a = make_inputs(t, s, Precision::fp32, 1);
    const auto rows = static_cast<int64_t>(a[0].value), nnz = static_cast<int64_t>(a[1].value);
    EXPECT_EQ(static_cast<uint64_t>(nnz), t.complexity(s));
    ASSERT_EQ(a[2].data.size(), static_cast<std::size_t>(nnz));
    for (int64_t i = 0; i < rows; ++i) ASSERT_EQ(a[3].data[static_cast<std::size_t>(i)], static_cast<double>(i));
    std::set<std::pair<double, double>> pairs;
    std::vector<int64_t> per_row(static_cast<std::size_t>(rows), 0);
    bool sorted = true;
    for (int64_t e = 0; e < nnz; ++e) {
      const double r = a[3].data[static_cast<std::size_t>(e)], c = a[4].data[static_cast<std::size_t>(e)];
      ASSERT_GE(r, 0);
      ASSERT_LT(r, static_cast<double>(rows));
      ASSERT_GE(c, 0);
      ASSERT_LT(c, static_cast<double>(s["cols"]));
      pairs.insert({r, c});
      ++per_row[static_cast<std::size_t>(r)];
      if (e > rows && r < a[3].data[static_cast<std::size_t>(e) - 1]) sorted = false;
    }
    EXPECT_EQ(pairs.size(), static_cast<std::size_t>(nnz)) << "duplicate (row, col)";
    EXPECT_FALSE(sorted) << "the tail must be unsorted";
    int64_t longest = 0;
    for (int64_t n : per_row) longest = std::max(longest, n);
    if (s.has("skew"))
      EXPECT_EQ(longest, s["cols"]) << "a skewed matrix has completely dense rows";
    else
      EXPECT_EQ(longest, 20);
  }
}

TEST(SpmvCoo, ShippedMatrixMarketFiles) { sparse_test::check_shipped_matrices("spmv_coo", 5, 6); }

}  // namespace

// The tail (entries rows..nnz-1) is a uniformly random order of the remaining entries: no row order
// survives (about half the neighbours ascend, both halves of the tail hold rows of the same mean).
TEST(SpmvCoo, TailIsShuffled) {
  const TaskSpec& t = get_task("spmv_coo");
  const Shape s{{"rows", 1024}, {"cols", 2048}};
  const Args a = make_inputs(t, s, Precision::fp32, 5);
  const auto rows = static_cast<std::size_t>(a[0].value), nnz = static_cast<std::size_t>(a[1].value);
  const mskb::HostData& r = a[3].data;
  std::size_t ascending = 0;
  double first = 0, second = 0;
  const std::size_t half = rows + (nnz - rows) / 2;
  for (std::size_t e = rows; e < nnz; ++e) {
    if (e + 1 < nnz) ascending += r[e] < r[e + 1];
    (e < half ? first : second) += r[e];
  }
  EXPECT_NEAR(static_cast<double>(ascending) / static_cast<double>(nnz - rows - 1), 0.5, 0.03);
  const double mean_first = first / static_cast<double>(half - rows), mean_second = second / static_cast<double>(nnz - half);
  EXPECT_NEAR(mean_first, 511.5, 20);
  EXPECT_NEAR(mean_second, 511.5, 20);
}

TEST(SpmvCooParallel, SameInputsAndReferenceOnOneCpu) {
  // Rows, buckets and chunks are filled in parallel from their own streams: a child pinned to one
  // CPU must reproduce the instance bit for bit.
  const TaskSpec& t = get_task("spmv_coo");
  for (const Shape& s : {Shape{{"rows", 8192}, {"cols", 3001}}, Shape{{"rows", 65537}, {"cols", 2048}, {"skew", 1}}}) {
    EXPECT_EQ(differences_on_one_cpu(t, s), 0u) << s.str();
  }
}
