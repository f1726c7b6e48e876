// Hand-checked cases for the matrix_vector_mul reference and its tolerance.
#include <gtest/gtest.h>

#include <cmath>

#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

Args run(int64_t m, int64_t n, const std::vector<double>& A, const std::vector<double>& x) {
  const TaskSpec& t = get_task("matrix_vector_mul");
  Args a(5);
  a[0].data.assign(A.begin(), A.end());
  a[1].data.assign(x.begin(), x.end());
  a[2].data.assign(static_cast<std::size_t>(m), 0.0);
  a[3].value = static_cast<double>(m);
  a[4].value = static_cast<double>(n);
  t.reference({{"M", m}, {"N", n}}, Precision::fp32, a);
  return a;
}

TEST(MatrixVectorMul, TwoByThree) {
  // [1 2 3; 4 5 6] * [1 0 -1] = [-2 -2]
  EXPECT_EQ(run(2, 3, {1, 2, 3, 4, 5, 6}, {1, 0, -1})[2].data, (std::vector<double>{-2, -2}));
}

TEST(MatrixVectorMul, RowVectorAndSingleElement) {
  EXPECT_EQ(run(1, 4, {1, 2, 3, 4}, {0.5, 0.5, 0.5, 0.5})[2].data, (std::vector<double>{5}));
  EXPECT_EQ(run(3, 1, {1, -2, 3}, {2})[2].data, (std::vector<double>{2, -4, 6}));
  EXPECT_EQ(run(1, 1, {0.25}, {-8})[2].data, (std::vector<double>{-2}));
}

TEST(MatrixVectorMul, Fp32AccumulationPassesBf16AccumulationFails) {
  // Simulates a sequential FP32 sum and a bf16-accumulated sum of one row against the FP64 reference.
  const TaskSpec& t = get_task("matrix_vector_mul");
  const Shape s{{"M", 64}, {"N", 4096}};
  const Args in = make_inputs(t, s, Precision::bf16, 1);
  const Args ref = make_expected(t, s, Precision::bf16, in);
  const Tolerance fp32 = t.tolerance(s, Precision::fp32), bf16 = t.tolerance(s, Precision::bf16);
  int bf16_acc_failures = 0;
  for (int64_t i = 0; i < 64; ++i) {
    float acc = 0.0f;
    double acc16 = 0.0;
    for (int64_t j = 0; j < 4096; ++j) {
      const double prod = in[0].data[static_cast<std::size_t>(i * 4096 + j)] * in[1].data[static_cast<std::size_t>(j)];
      acc += static_cast<float>(prod);
      acc16 = round_to(Precision::bf16, acc16 + round_to(Precision::bf16, prod));
    }
    const double want = ref[2].data[static_cast<std::size_t>(i)];
    EXPECT_LE(std::abs(static_cast<double>(acc) - want), fp32.atol + fp32.rtol * std::abs(want));
    const double out16 = round_to(Precision::bf16, static_cast<double>(acc));
    EXPECT_LE(std::abs(out16 - want), bf16.atol + bf16.rtol * std::abs(want));
    bf16_acc_failures += std::abs(acc16 - want) > bf16.atol + bf16.rtol * std::abs(want);
  }
  EXPECT_GT(bf16_acc_failures, 32);
}

}  // namespace
