// Hand-checked cases for the matrix_power FP64 reference, the orthogonal generator and the tolerance.
#include <gtest/gtest.h>

#include <cmath>

#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

Args run(int64_t n, int64_t p, const std::vector<double>& A) {
  const TaskSpec& t = get_task("matrix_power");
  Args a(4);
  a[0].data.assign(A.begin(), A.end());
  a[1].data.assign(A.size(), 0.0);
  a[2].value = static_cast<double>(n);
  a[3].value = static_cast<double>(p);
  t.reference({{"N", n}, {"P", p}}, Precision::fp32, a);
  return a;
}

TEST(MatrixPower, ShearMatrix) {
  // [1 1; 0 1]^P = [1 P; 0 1]
  for (int64_t p : {1, 2, 5, 11, 16}) EXPECT_EQ(run(2, p, {1, 1, 0, 1})[1].data, (std::vector<double>{1, double(p), 0, 1})) << p;
}

TEST(MatrixPower, SwapAndDiagonal) {
  EXPECT_EQ(run(2, 2, {0, 1, 1, 0})[1].data, (std::vector<double>{1, 0, 0, 1}));
  EXPECT_EQ(run(2, 3, {0, 1, 1, 0})[1].data, (std::vector<double>{0, 1, 1, 0}));
  EXPECT_EQ(run(2, 5, {2, 0, 0, -1})[1].data, (std::vector<double>{32, 0, 0, -1}));
  EXPECT_EQ(run(1, 7, {-2})[1].data, (std::vector<double>{-128}));
}

TEST(MatrixPower, NonCommutingEntriesThreeByThree) {
  // A = [1 2 0; 0 1 3; 0 0 1]: A^2 = [1 4 6; 0 1 6; 0 0 1], A^3 = [1 6 18; 0 1 9; 0 0 1]
  EXPECT_EQ(run(3, 2, {1, 2, 0, 0, 1, 3, 0, 0, 1})[1].data, (std::vector<double>{1, 4, 6, 0, 1, 6, 0, 0, 1}));
  EXPECT_EQ(run(3, 3, {1, 2, 0, 0, 1, 3, 0, 0, 1})[1].data, (std::vector<double>{1, 6, 18, 0, 1, 9, 0, 0, 1}));
}

TEST(MatrixPower, GeneratedMatrixIsOrthogonalAndPowersStayBounded) {
  const TaskSpec& t = get_task("matrix_power");
  const Shape s{{"N", 96}, {"P", 16}};
  const Args in = make_inputs(t, s, Precision::fp32, 1);
  const auto& A = in[0].data;
  for (int64_t i = 0; i < 96; i += 7)
    for (int64_t j = 0; j < 96; j += 5) {
      double dot = 0.0;
      for (int64_t k = 0; k < 96; ++k) dot += A[static_cast<std::size_t>(i * 96 + k)] * A[static_cast<std::size_t>(j * 96 + k)];
      EXPECT_NEAR(dot, i == j ? 1.0 : 0.0, 1e-6);
    }
  const Args ref = make_expected(t, s, Precision::fp32, in);
  double ss = 0.0;
  for (double x : ref[1].data) ss += x * x;
  EXPECT_NEAR(ss / 96.0, 1.0, 1e-4);  // A^16 is orthogonal too: Frobenius norm^2 = N
}

TEST(MatrixPower, Fp32ChainPassesOffByOnePowerFails) {
  // A naive FP32 chain of P - 1 products (sequential FMA dot products) passes; A^(P-1) fails.
  const TaskSpec& t = get_task("matrix_power");
  const int64_t n = 64, p = 11;
  const Shape s{{"N", n}, {"P", p}};
  const Args in = make_inputs(t, s, Precision::fp32, 2);
  const Args ref = make_expected(t, s, Precision::fp32, in);
  const Tolerance tol = t.tolerance(s, Precision::fp32);
  std::vector<float> a(in[0].data.begin(), in[0].data.end()), cur = a, next(a.size()), prev;
  for (int64_t step = 1; step < p; ++step) {
    prev = cur;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float acc = 0.0f;
        for (int64_t k = 0; k < n; ++k) acc = std::fmaf(cur[static_cast<std::size_t>(i * n + k)], a[static_cast<std::size_t>(k * n + j)], acc);
        next[static_cast<std::size_t>(i * n + j)] = acc;
      }
    cur.swap(next);
  }
  int bad = 0, bad_prev = 0;
  for (std::size_t i = 0; i < cur.size(); ++i) {
    const double w = ref[1].data[i], bound = tol.atol + tol.rtol * std::abs(w);
    bad += std::abs(cur[i] - w) > bound;
    bad_prev += std::abs(prev[i] - w) > bound;
  }
  EXPECT_EQ(bad, 0);
  EXPECT_GT(bad_prev, static_cast<int>(cur.size() / 2));
}

}  // namespace
