// Hand-checked cases for the spmm_csr FP64 reference and generator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "../common/matrix_check.hpp"
#include "mskb/core/sparse_gen.hpp"
#include "support/fp32_error_model.hpp"
#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

Args csr_args(int rows, int K, const std::vector<double>& v, const std::vector<double>& c, const std::vector<double>& off,
              const std::vector<double>& X) {
  const TaskSpec& t = get_task("spmm_csr");
  Args a(t.params.size());
  a[0].value = rows;
  a[1].value = K;
  a[2].data.assign(v.begin(), v.end());
  a[3].data.assign(c.begin(), c.end());
  a[4].data.assign(off.begin(), off.end());
  a[5].data.assign(X.begin(), X.end());
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

// The FP32 tolerance (sparse::sum_tolerance, shared by every sparse task) covers one sequential FP32
// accumulator per output over the longest row of the skewed large shape (2^16 x 2^14, K = 2048: 145
// fully dense rows of 16384 entries, ~3e5 outputs), with and without FMA, on generator-like values,
// and still rejects a dropped entry.
TEST(SparseSumTolerance, CoversSequentialFp32RowSumsOfTheDenseRows) {
  using namespace mskb::fp32_model;
  namespace sp = mskb::sparse;
  const TaskSpec& t = get_task("spmm_csr");
  const Shape s{{"rows", int64_t{1} << 16}, {"cols", int64_t{1} << 14}, {"K", 2048}, {"skew", 1}};
  ASSERT_NE(std::find(t.large.begin(), t.large.end(), s), t.large.end());
  const Tolerance tol = t.tolerance(s, Precision::fp32);
  const Tolerance old{1e-5 * 0.5 * 128.0, 1e-5};  // before the linear term
  constexpr int kLen = 1 << 14, kTrials = 1024;
  Rng rng(41);
  std::vector<ErrorSample> now, before;
  for (int trial = 0; trial < kTrials; ++trial) {
    Fp32Sum fma_sum, mul_add;
    double exact = 0;
    for (int k = 0; k < kLen; ++k) {
      const auto a = static_cast<float>(sp::draw_value(rng)), x = static_cast<float>(sp::draw_value(rng));
      fma_sum.fma(a, x);
      mul_add.mul_add(a, x);
      exact += static_cast<double>(a) * static_cast<double>(x);
    }
    for (const Fp32Sum& f : {fma_sum, mul_add}) {
      now.push_back({f.value - exact, f.sd(), tol.atol + tol.rtol * std::fabs(exact)});
      before.push_back({f.value - exact, f.sd(), old.atol + old.rtol * std::fabs(exact)});
    }
  }
  const double measured = measured_worst(now), at_shape = extrapolated_worst(now, 3e5), at_1e8 = extrapolated_worst(now, 1e8);
  std::printf("sequential FP32 row sums of 16384 entries: worst of %zu %.3f, expected worst over 3e5 outputs %.3f, "
              "over 1e8 %.3f of the tolerance (previous tolerance: %.3f over 3e5)\n",
              now.size(), measured, at_shape, at_1e8, extrapolated_worst(before, 3e5));
  EXPECT_LT(measured, 0.6);
  EXPECT_LT(at_shape, 0.6);
  EXPECT_LT(at_1e8, 0.8);  // a user matrix with 10^8 outputs of that length
  EXPECT_GT(extrapolated_worst(before, 3e5), 0.6);  // the previous tolerance: ~0.85, too close to 1
  // A dropped entry moves an output by at least 1/16 (entries and X values have magnitude >= 1/4).
  const double typical = 0.44 * std::sqrt(static_cast<double>(kLen));
  EXPECT_GT(1.0 / 16.0 / (tol.atol + tol.rtol * typical), 10.0);
}
