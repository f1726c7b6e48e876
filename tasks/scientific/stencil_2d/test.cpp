// Hand-checked cases for the stencil_2d FP64 reference (u[i*ny + j], boundary copied).
#include <gtest/gtest.h>

#include <cmath>

#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

std::vector<double> run(int64_t nx, int64_t ny, double r, const std::vector<double>& u) {
  const TaskSpec& t = get_task("stencil_2d");
  Args a(t.params.size());
  a[0].data.assign(u.size(), -99.0);  // must be overwritten everywhere
  a[1].data.assign(u.begin(), u.end());
  a[2].value = r;
  a[3].value = static_cast<double>(nx);
  a[4].value = static_cast<double>(ny);
  t.reference(Shape{{"nx", nx}, {"ny", ny}}, Precision::fp32, a);
  return {a[0].data.begin(), a[0].data.end()};
}

TEST(Stencil2d, ThreeByThreeUpdatesOnlyTheCentre) {
  // u = [1 2 3; 4 5 6; 7 8 9]; centre: 5 + r*(2 + 8 + 4 + 6 - 20) = 5 for any r.
  const std::vector<double> u{1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_EQ(run(3, 3, 0.25, u), u);
  // Non-harmonic centre: u = [0 1 0; 0 0 0; 0 0 0], centre = 0 + 0.1*(1 - 0) = 0.1.
  const auto y = run(3, 3, 0.1, {0, 1, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_NEAR(y[4], 0.1, 1e-15);
  EXPECT_EQ(y[1], 1.0);
}

TEST(Stencil2d, LayoutIsIMajorWithNyContiguous) {
  // nx = 3 rows of ny = 4: interior points (1,1) and (1,2). Spike at (1,1) = index 5.
  std::vector<double> u(12, 0.0);
  u[5] = 1.0;
  const auto y = run(3, 4, 0.2, u);
  EXPECT_NEAR(y[5], 1.0 - 0.8, 1e-15);  // u + r*(0 - 4u)
  EXPECT_NEAR(y[6], 0.2, 1e-15);        // right neighbour (1,2) sees the spike at j-1
  for (std::size_t k : {0u, 1u, 2u, 3u, 4u, 7u, 8u, 9u, 10u, 11u}) EXPECT_EQ(y[k], u[k]) << k;
}

TEST(Stencil2d, DegenerateGridsAreAllBoundary) {
  const std::vector<double> u{0.5, -1, 2, 3, -4, 0.25};
  EXPECT_EQ(run(1, 6, 0.25, u), u);
  EXPECT_EQ(run(6, 1, 0.25, u), u);
  EXPECT_EQ(run(2, 3, 0.25, u), u);
  EXPECT_EQ(run(3, 2, 0.25, u), u);
}

TEST(Stencil2d, PaperUsesQuarterHeldOutVariesR) {
  const TaskSpec& t = get_task("stencil_2d");
  EXPECT_EQ(make_inputs(t, t.paper.front(), Precision::fp32, 1)[2].value, 0.25);
  const Shape h{{"nx", 5}, {"ny", 1000}, {"rand_r", 1}};
  const double r1 = make_inputs(t, h, Precision::fp32, 1)[2].value, r2 = make_inputs(t, h, Precision::fp32, 2)[2].value;
  EXPECT_NE(r1, 0.25);
  EXPECT_NE(r1, r2);
  EXPECT_GE(r1, 0.05);
  EXPECT_LT(r1, 0.25);
}

TEST(Stencil2d, GeneratedInstanceMatchesDirectFormula) {
  const TaskSpec& t = get_task("stencil_2d");
  const Shape s{{"nx", 37}, {"ny", 53}, {"rand_r", 1}};
  const Args in = make_inputs(t, s, Precision::bf16, 4);
  const Args e = make_expected(t, s, Precision::bf16, in);
  const double r = in[2].value;
  const auto& u = in[1].data;
  for (int64_t i = 1; i < 36; ++i)
    for (int64_t j = 1; j < 52; ++j) {
      const auto c = static_cast<std::size_t>(i * 53 + j);
      const double want = (1 - 4 * r) * u[c] + r * (u[c - 53] + u[c + 53] + u[c - 1] + u[c + 1]);
      ASSERT_NEAR(e[0].data[c], want, 1e-14);
    }
}

}  // namespace
