// Hand-checked cases for the high_order_contraction FP64 reference.
#include <gtest/gtest.h>

#include <cmath>

#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

Shape shape(int64_t a, int64_t b, int64_t c, int64_t x, int64_t y) {
  return Shape{{"a_dim", a}, {"b_dim", b}, {"c_dim", c}, {"x_dim", x}, {"y_dim", y}};
}

Args run(const Shape& s, const std::vector<double>& A, const std::vector<double>& B) {
  const TaskSpec& t = get_task("high_order_contraction");
  Args a(8);
  a[0].data.assign(A.begin(), A.end());
  a[1].data.assign(B.begin(), B.end());
  a[2].data.assign(static_cast<std::size_t>(s["a_dim"] * s["b_dim"] * s["c_dim"]), 0.0);
  t.reference(s, Precision::fp32, a);
  return a;
}

TEST(HighOrderContraction, ScalarCase) { EXPECT_EQ(run(shape(1, 1, 1, 1, 1), {3}, {-2})[2].data, (std::vector<double>{-6})); }

TEST(HighOrderContraction, XAndYAreBothSummed) {
  // a = b = c = 1, x = 2, y = 3: C = sum_{x,y} A[x][y] * B[x][y] = 1*1 + 2*0 + 3*(-1) + 4*2 + 5*1 + 6*0 = 11
  EXPECT_EQ(run(shape(1, 1, 1, 2, 3), {1, 2, 3, 4, 5, 6}, {1, 0, -1, 2, 1, 0})[2].data, (std::vector<double>{11}));
}

TEST(HighOrderContraction, AxisOrderOfA) {
  // a = 1, b = 2, c = 1, x = 2, y = 1: A[0,x,b,0] stored as [x][b] = {1, 2, 3, 4}; B[x,0,0] = {10, 100}.
  // C[0,b,0] = A[0,0,b]*10 + A[0,1,b]*100: b = 0 -> 1*10 + 3*100 = 310, b = 1 -> 2*10 + 4*100 = 420.
  EXPECT_EQ(run(shape(1, 2, 1, 2, 1), {1, 2, 3, 4}, {10, 100})[2].data, (std::vector<double>{310, 420}));
}

TEST(HighOrderContraction, AxisOrderOfBAndC) {
  // a = 2, b = 1, c = 2, x = 1, y = 2: A[a,0,0,y] = {{1, 2}, {3, 4}}; B[0,c,y] = {{1, 1}, {1, -1}}.
  // C[a,0,c]: a=0: {3, -1}; a=1: {7, -1}.
  EXPECT_EQ(run(shape(2, 1, 2, 1, 2), {1, 2, 3, 4}, {1, 1, 1, -1})[2].data, (std::vector<double>{3, -1, 7, -1}));
}

TEST(HighOrderContraction, MatchesTheDefinitionOnGeneratedInputs) {
  const TaskSpec& t = get_task("high_order_contraction");
  const Shape s = shape(3, 5, 7, 2, 3);
  const Args in = make_inputs(t, s, Precision::fp32, 1);
  const Args out = make_expected(t, s, Precision::fp32, in);
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t b = 0; b < 5; ++b)
      for (int64_t c = 0; c < 7; ++c) {
        double want = 0.0;
        for (int64_t x = 0; x < 2; ++x)
          for (int64_t y = 0; y < 3; ++y)
            want += in[0].data[static_cast<std::size_t>(((a * 2 + x) * 5 + b) * 3 + y)] * in[1].data[static_cast<std::size_t>((x * 7 + c) * 3 + y)];
        EXPECT_NEAR(out[2].data[static_cast<std::size_t>((a * 5 + b) * 7 + c)], want, 1e-12);
      }
}

}  // namespace
