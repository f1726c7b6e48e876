// Hand-checked cases for the matrix_scalar_mul reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "mskb/core/instance.hpp"
#include "support/one_cpu.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

TEST(MatrixScalarMul, ScalesEveryElement) {
  const TaskSpec& t = get_task("matrix_scalar_mul");
  Args a(5);
  a[0].data = {1.0, -2.0, 0.5, 4.0, 0.25, -6.0};  // 2 x 3
  a[1].data.assign(6, 0.0);
  a[2].value = -1.5;
  a[3].value = 2;
  a[4].value = 3;
  t.reference({{"M", 2}, {"N", 3}}, Precision::fp32, a);
  EXPECT_EQ(a[1].data, (std::vector<double>{-1.5, 3.0, -0.75, -6.0, -0.375, 9.0}));
}

TEST(MatrixScalarMul, GeneratedScalarIsRoundedToBf16AndNeverTrivial) {
  const TaskSpec& t = get_task("matrix_scalar_mul");
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const Args a = make_inputs(t, {{"M", 3}, {"N", 5}}, Precision::bf16, seed);
    EXPECT_EQ(a[2].value, round_to(Precision::bf16, a[2].value));
    EXPECT_GE(std::abs(a[2].value), 0.5);
    EXPECT_LE(std::abs(a[2].value), 3.0);
  }
}

TEST(MatrixScalarMul, Bf16ToleranceCoversOneRounding) {
  const TaskSpec& t = get_task("matrix_scalar_mul");
  // 1.0078125 * 1.0078125 = 1.01568603515625 rounds to 1.015625 in bf16.
  const double exact = 1.0078125 * 1.0078125, rounded = round_to(Precision::bf16, exact);
  const Tolerance tol = t.tolerance({{"M", 1}, {"N", 1}}, Precision::bf16);
  EXPECT_LE(std::abs(rounded - exact), tol.atol + tol.rtol * std::abs(exact));
}

}  // namespace

TEST(MatrixScalarMulParallel, SameInputsAndReferenceOnOneCpu) {
  // The generator and the FP64 reference split their work over the CPUs (fixed chunks, fixed
  // combining order): a child pinned to one CPU must reproduce them bit for bit.
  const TaskSpec& t = get_task("matrix_scalar_mul");
  for (const Shape& s : {Shape{{"M", 1000}, {"N", 1111}}}) {
    EXPECT_EQ(differences_on_one_cpu(t, s), 0u) << s.str();
  }
}
