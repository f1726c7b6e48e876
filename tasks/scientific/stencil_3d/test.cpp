// Hand-checked cases for the stencil_3d FP64 reference.
#include <gtest/gtest.h>

#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

Args make(int64_t nx, int64_t ny, int64_t nz, double r, const std::vector<double>& u) {
  Args a(6);
  a[0].data.assign(u.size(), -99.0);
  a[1].data.assign(u.begin(), u.end());
  a[2].value = r;
  a[3].value = static_cast<double>(nx);
  a[4].value = static_cast<double>(ny);
  a[5].value = static_cast<double>(nz);
  return a;
}

TEST(Stencil3dReference, SingleInteriorPointOfA3x3x3Grid) {
  const TaskSpec& t = get_task("stencil_3d");
  std::vector<double> u(27);
  for (int q = 0; q < 27; ++q) u[q] = q;  // u[(i*3 + j)*3 + k] = 9i + 3j + k
  Args a = make(3, 3, 3, 0.1, u);
  t.reference(Shape{{"nx", 3}, {"ny", 3}, {"nz", 3}}, Precision::fp32, a);
  // centre 13; neighbours 4, 22 (i), 10, 16 (j), 12, 14 (k): sum 78 = 6*13, so the update is 0.
  EXPECT_DOUBLE_EQ(a[0].data[13], 13.0);
  for (int q = 0; q < 27; ++q)
    if (q != 13) {
      EXPECT_DOUBLE_EQ(a[0].data[q], u[q]) << q;  // boundary copied
    }
}

TEST(Stencil3dReference, NonLinearCentreUsesAllSixNeighbours) {
  const TaskSpec& t = get_task("stencil_3d");
  std::vector<double> u(27, 0.0);
  u[13] = 2.0;  // centre
  u[4] = 1.0;   // i-1
  u[22] = 3.0;  // i+1
  u[10] = -1.0; // j-1
  u[16] = 0.5;  // j+1
  u[12] = 4.0;  // k-1
  u[14] = -2.0; // k+1
  Args a = make(3, 3, 3, 0.25, u);
  t.reference(Shape{{"nx", 3}, {"ny", 3}, {"nz", 3}}, Precision::fp32, a);
  // 2 + 0.25 * (1 + 3 - 1 + 0.5 + 4 - 2 - 12) = 2 + 0.25 * (-6.5) = 0.375
  EXPECT_DOUBLE_EQ(a[0].data[13], 0.375);
  EXPECT_DOUBLE_EQ(a[0].data[4], 1.0);
  EXPECT_DOUBLE_EQ(a[0].data[14], -2.0);
}

TEST(Stencil3dReference, AnisotropicLayoutIndexesKFastest) {
  // nx=3, ny=3, nz=4: interior points (1,1,1) and (1,1,2); strides sx = 12, sy = 4.
  const TaskSpec& t = get_task("stencil_3d");
  std::vector<double> u(36);
  for (int q = 0; q < 36; ++q) u[q] = q * q;  // nonlinear so the update is nonzero
  Args a = make(3, 3, 4, 0.125, u);
  t.reference(Shape{{"nx", 3}, {"ny", 3}, {"nz", 4}}, Precision::fp32, a);
  auto expect = [&](int c) {
    const double nb = u[c - 12] + u[c + 12] + u[c - 4] + u[c + 4] + u[c - 1] + u[c + 1];
    return u[c] + 0.125 * (nb - 6 * u[c]);
  };
  // centre 17: (17^2 from 5,29,13,21,16,18) -> nb - 6c = 2*(144 + 16 + 1) = 322
  EXPECT_DOUBLE_EQ(a[0].data[17], 289.0 + 0.125 * 322.0);
  EXPECT_DOUBLE_EQ(a[0].data[17], expect(17));
  EXPECT_DOUBLE_EQ(a[0].data[18], expect(18));
  int interior = 0;
  for (int q = 0; q < 36; ++q)
    if (a[0].data[q] != u[q]) ++interior;
  EXPECT_EQ(interior, 2);
}

TEST(Stencil3dReference, ThinGridsAreAllBoundary) {
  const TaskSpec& t = get_task("stencil_3d");
  for (auto dims : {std::vector<int64_t>{1, 1, 1}, {2, 5, 5}, {5, 5, 1}, {4, 2, 4}}) {
    const int64_t n = dims[0] * dims[1] * dims[2];
    std::vector<double> u(static_cast<std::size_t>(n));
    for (int64_t q = 0; q < n; ++q) u[static_cast<std::size_t>(q)] = 0.5 * static_cast<double>(q) - 3.0;
    Args a = make(dims[0], dims[1], dims[2], 0.2, u);
    t.reference(Shape{{"nx", dims[0]}, {"ny", dims[1]}, {"nz", dims[2]}}, Precision::bf16, a);
    EXPECT_EQ(a[0].data, u);
  }
}

TEST(Stencil3dReference, GeneratorUsesPaperROrDrawsIt) {
  const TaskSpec& t = get_task("stencil_3d");
  const Shape paper{{"nx", 5}, {"ny", 6}, {"nz", 7}};
  Args a(t.params.size());
  Rng rng(42);
  t.generate(paper, Precision::fp32, rng, a);
  EXPECT_EQ(a[0].data.size(), 210u);
  EXPECT_EQ(a[1].data.size(), 210u);
  EXPECT_EQ(a[2].value, 0.25);
  EXPECT_EQ(a[5].value, 7.0);
  const Shape drawn{{"nx", 5}, {"ny", 6}, {"nz", 7}, {"rand_r", 1}};
  Args b(t.params.size());
  t.generate(drawn, Precision::fp32, rng, b);
  EXPECT_GE(b[2].value, 0.05);
  EXPECT_LT(b[2].value, 0.25);
  int with_drawn_r = 0;
  for (const Shape& s : t.heldout) with_drawn_r += s.has("rand_r") ? 1 : 0;
  EXPECT_GE(with_drawn_r, 3);
  // Uniform inputs (the verifier draws large ones on the GPU): u_old U(-1, 1), r per seed.
  ASSERT_TRUE(t.uniform_inputs);
  const Args x = make_inputs(t, drawn, Precision::fp32, 1), y = make_inputs(t, drawn, Precision::fp32, 2);
  EXPECT_NE(x[2].value, y[2].value);
  EXPECT_NE(x[1].data, y[1].data);
  for (double v : x[1].data) {
    ASSERT_GE(v, -1.0);
    ASSERT_LE(v, 1.0);
  }
  EXPECT_EQ(make_inputs(t, paper, Precision::bf16, 3)[2].value, 0.25);
}

}  // namespace
