// Hand-checked cases for the spmv_csr FP64 reference and its generators.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "mskb/core/sparse_gen.hpp"
#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"
#include "support/one_cpu.hpp"

using namespace mskb;

namespace {

std::vector<double> run(int64_t rows, const std::vector<double>& vals, const std::vector<double>& cols,
                        const std::vector<double>& offsets, const std::vector<double>& x) {
  const TaskSpec& t = get_task("spmv_csr");
  Args a(t.params.size());
  a[0].value = static_cast<double>(rows);
  a[1].data.assign(vals.begin(), vals.end());
  a[2].data.assign(cols.begin(), cols.end());
  a[3].data.assign(offsets.begin(), offsets.end());
  a[4].data.assign(x.begin(), x.end());
  a[5].data.assign(static_cast<std::size_t>(rows), -7.0);  // must be overwritten
  t.reference(Shape{{"rows", rows}, {"cols", static_cast<int64_t>(x.size())}}, Precision::fp32, a);
  return {a[5].data.begin(), a[5].data.end()};
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

// ---- the shared generator's building blocks (sparse_gen.hpp) -------------------------------------

namespace {

namespace sp = mskb::sparse;

// One subset drawn into a guarded buffer: k values, strictly ascending, in [0, n), nothing written
// past out[k - 1] (the read-out writes ahead into scratch, never into the caller's buffer).
template <class Out>
std::vector<Out> checked_sample(int64_t n, int64_t k, sp::LineRng& r, sp::SampleScratch& s) {
  const auto guard = static_cast<Out>(-12345);
  std::vector<Out> buf(static_cast<std::size_t>(k) + 8, guard);
  sp::sample_sorted_distinct(n, k, r, s, buf.data());
  for (int64_t j = 0; j < k; ++j) {
    const Out v = buf[static_cast<std::size_t>(j)];
    EXPECT_GE(v, 0) << n << " " << k;
    EXPECT_LT(v, static_cast<Out>(n)) << n << " " << k;
    if (j > 0) {
      EXPECT_LT(buf[static_cast<std::size_t>(j) - 1], v) << n << " " << k << " sorted, distinct";
    }
  }
  for (std::size_t j = static_cast<std::size_t>(k); j < buf.size(); ++j) EXPECT_EQ(buf[j], guard) << n << " " << k;
  buf.resize(static_cast<std::size_t>(k));
  return buf;
}

TEST(SparseGen, SampleSortedDistinctInEveryRegime) {
  sp::SampleScratch s;  // shared across sizes, as a thread's scratch is across lines
  const std::vector<std::pair<int64_t, int64_t>> cases = {
      {1, 1},     {2, 1},      {64, 32},    {65, 33},       {100, 1},         {100, 50},        {100, 51},  {100, 99},
      {100, 100}, {2048, 20},  {2000, 1999}, {16384, 164},  {16384, 16000},   {5000, 9},        {1 << 20, 3},
      {1 << 20, 2047}, {1 << 20, 2048}};
  for (const auto& [n, k] : cases)
    for (int64_t seed = 0; seed < 20; ++seed) {
      sp::LineRng r(static_cast<uint64_t>(n * 4099 + k), seed);
      checked_sample<int32_t>(n, k, r, s);
      checked_sample<double>(n, k, r, s);
    }
  sp::LineRng r(1);
  int32_t out[4];
  EXPECT_THROW(sp::sample_sorted_distinct(3, 4, r, s, out), std::logic_error);
}

// Every k-subset equally likely (chi-square over the 120 subsets of 10 elements, bitmap k = 3 and
// complement k = 7) and every element equally likely in the sorting regime (k < n / 512).
TEST(SparseGen, SampleSortedDistinctIsUniform) {
  sp::SampleScratch s;
  for (int64_t k : {3, 7}) {
    std::map<uint32_t, int> count;
    constexpr int kDraws = 120000;
    for (int i = 0; i < kDraws; ++i) {
      sp::LineRng r(static_cast<uint64_t>(k), i);
      int32_t out[10];
      sp::sample_sorted_distinct(10, k, r, s, out);
      uint32_t mask = 0;
      for (int64_t j = 0; j < k; ++j) mask |= 1u << out[j];
      ++count[mask];
    }
    ASSERT_EQ(count.size(), 120u) << k;
    double chi2 = 0;
    for (const auto& c : count) chi2 += (c.second - 1000.0) * (c.second - 1000.0) / 1000.0;
    EXPECT_LT(chi2, 119 + 6 * std::sqrt(2.0 * 119)) << k;  // 119 degrees of freedom
  }
  constexpr int64_t kN = 1030, kDraws = 200000;
  std::vector<int> count(kN, 0);
  for (int64_t i = 0; i < kDraws; ++i) {
    sp::LineRng r(99, i);
    int32_t out[2];
    sp::sample_sorted_distinct(kN, 2, r, s, out);
    ++count[static_cast<std::size_t>(out[0])];
    ++count[static_cast<std::size_t>(out[1])];
  }
  const double expect = 2.0 * kDraws / kN;
  double chi2 = 0;
  for (int c : count) chi2 += (c - expect) * (c - expect) / expect;
  EXPECT_LT(chi2, (kN - 1) + 6 * std::sqrt(2.0 * (kN - 1)));
}

TEST(SparseGen, LineRngBelowIsUniformAndInRange) {
  sp::LineRng r(5);
  std::vector<int> count(7, 0);
  for (int i = 0; i < 70000; ++i) {
    const uint32_t x = r.below(7);
    ASSERT_LT(x, 7u);
    ++count[x];
  }
  for (int c : count) EXPECT_NEAR(c, 10000, 500);
  EXPECT_EQ(r.below(1), 0u);
  for (int i = 0; i < 100; ++i) EXPECT_LT(r.below(uint64_t{1} << 32), uint64_t{1} << 32);
}

// Values: magnitude uniform in [0.25, 1), either sign equally likely; fill_values is entry_value of
// one key by position.
TEST(SparseGen, ValuesAreSignedUniformMagnitudes) {
  std::vector<double> v(1 << 20);
  Rng rng(3);
  Rng copy = rng;
  sp::fill_values(v, rng);
  const uint64_t key = copy.next();
  double lo = 1, hi = 0, sum = 0;
  int64_t negative = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    ASSERT_EQ(v[i], sp::entry_value(key, static_cast<int64_t>(i))) << i;
    const double m = std::fabs(v[i]);
    lo = std::min(lo, m);
    hi = std::max(hi, m);
    sum += m;
    negative += v[i] < 0;
  }
  EXPECT_GE(lo, 0.25);
  EXPECT_LT(lo, 0.2501);
  EXPECT_LT(hi, 1.0);
  EXPECT_GT(hi, 0.9999);
  EXPECT_NEAR(sum / static_cast<double>(v.size()), 0.625, 0.0015);  // standard error 2e-4
  EXPECT_NEAR(static_cast<double>(negative) / static_cast<double>(v.size()), 0.5, 0.003);
  EXPECT_EQ(sp::value_of_bits(0), 0.25);
  EXPECT_EQ(sp::value_of_bits(~uint64_t{0}), -(1.0 - 0x1.8p-52));  // (2^53 - 3) * 2^-53, negative
}

// The water-filled power law: exactly the total, every line within [min_len, cap], the heaviest
// lines dense, at least the empty share of the lines empty (min_len = 0) or none (min_len = 1).
TEST(SparseGen, PowerLawLengthsHoldTheTotalWithinTheCaps) {
  struct Case {
    int64_t major, cap, min_len;
  };
  for (const Case& c : {Case{100003, 5000, 0}, Case{65537, 2048, 1}, Case{4097, 1500, 0}, Case{1000, 10, 0}}) {
    Rng rng(static_cast<uint64_t>(c.major));
    const int64_t total = sp::total_nnz(c.major, c.cap);
    const std::vector<int64_t> len =
        sp::powerlaw_lengths(c.major, c.cap, total, c.min_len, c.min_len == 0 ? sp::kEmptyFraction : 0.0, rng);
    ASSERT_EQ(static_cast<int64_t>(len.size()), c.major);
    int64_t sum = 0, longest = 0, empty = 0;
    for (int64_t l : len) {
      ASSERT_GE(l, c.min_len);
      ASSERT_LE(l, c.cap);
      sum += l;
      longest = std::max(longest, l);
      empty += l == 0;
    }
    EXPECT_EQ(sum, total) << c.major;
    EXPECT_EQ(longest, c.cap) << c.major;
    if (c.min_len == 0)
      EXPECT_GE(empty, static_cast<int64_t>(sp::kEmptyFraction * static_cast<double>(c.major))) << c.major;
    else
      EXPECT_EQ(empty, 0) << c.major;
    // The dense lines are spread over the matrix (a random ranking of the lines), not bunched.
    int64_t dense_first_half = 0, dense = 0;
    for (int64_t i = 0; i < c.major; ++i) {
      dense += len[static_cast<std::size_t>(i)] == c.cap;
      dense_first_half += len[static_cast<std::size_t>(i)] == c.cap && 2 * i < c.major;
    }
    if (dense >= 8) {
      EXPECT_GT(dense_first_half, 0) << c.major;
      EXPECT_LT(dense_first_half, dense) << c.major;
    }
  }
}

// The compressed generator writes the same matrix into a task's buffers as into a Compressed.
TEST(SparseGen, BufferAndStructFormsAgree) {
  for (bool skew : {false, true}) {
    Rng a(11), b(11);
    const sp::Compressed c = sp::generate_compressed(3000, 1500, skew, 0, a);
    HostData values(7, 1.0), indices(3, 2.0), offsets;  // stale contents are replaced
    sp::generate_compressed(3000, 1500, skew, 0, b, values, indices, offsets);
    ASSERT_EQ(offsets.size(), c.offsets.size());
    for (std::size_t i = 0; i < offsets.size(); ++i) ASSERT_EQ(offsets[i], static_cast<double>(c.offsets[i]));
    ASSERT_EQ(indices.size(), c.indices.size());
    for (std::size_t p = 0; p < indices.size(); ++p) ASSERT_EQ(indices[p], static_cast<double>(c.indices[p]));
    EXPECT_EQ(values, c.values);
    EXPECT_EQ(a.next(), b.next()) << "the same draws of the instance's Rng";
  }
}

}  // namespace

TEST(SpmvCsrParallel, SameInputsAndReferenceOnOneCpu) {
  // Lines are filled in parallel blocks from per-line streams: a child pinned to one CPU must
  // reproduce the instance bit for bit.
  const TaskSpec& t = get_task("spmv_csr");
  for (const Shape& s : {Shape{{"rows", 8192}, {"cols", 2048}}, Shape{{"rows", 65537}, {"cols", 2048}, {"skew", 1}}}) {
    EXPECT_EQ(differences_on_one_cpu(t, s), 0u) << s.str();
  }
}
