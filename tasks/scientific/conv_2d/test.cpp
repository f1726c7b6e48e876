// Hand-checked cases for the conv_2d FP64 reference (valid cross-correlation, row-major, no flip).
#include <gtest/gtest.h>

#include "mskb/instance.hpp"
#include "mskb/registry.hpp"

using namespace mskb;

namespace {

std::vector<double> correlate(const std::vector<double>& in, int64_t ir, int64_t ic, const std::vector<double>& k,
                              int64_t kr, int64_t kc) {
  const TaskSpec& t = get_task("conv_2d");
  Args a(7);
  a[0].data = in;
  a[1].data = k;
  a[2].data.assign(static_cast<std::size_t>((ir - kr + 1) * (ic - kc + 1)), 0.0);
  a[3].value = static_cast<double>(ir);
  a[4].value = static_cast<double>(ic);
  a[5].value = static_cast<double>(kr);
  a[6].value = static_cast<double>(kc);
  t.reference(Shape{{"input_rows", ir}, {"input_cols", ic}, {"kernel_rows", kr}, {"kernel_cols", kc}}, Precision::fp32, a);
  return a[2].data;
}

TEST(Conv2dReference, ThreeByThreeWithTwoByTwoFilter) {
  // in = [1 2 3; 4 5 6; 7 8 9], k = [1 0; 0 -1]: out[i][j] = in[i][j] - in[i+1][j+1] = -4 everywhere.
  EXPECT_EQ(correlate({1, 2, 3, 4, 5, 6, 7, 8, 9}, 3, 3, {1, 0, 0, -1}, 2, 2), (std::vector<double>{-4, -4, -4, -4}));
  // k = [0 1; 2 0] is not flipped: out[i][j] = in[i][j+1] + 2 in[i+1][j]
  EXPECT_EQ(correlate({1, 2, 3, 4, 5, 6, 7, 8, 9}, 3, 3, {0, 1, 2, 0}, 2, 2), (std::vector<double>{10, 13, 19, 22}));
}

TEST(Conv2dReference, NonSquareShapesAreRowMajor) {
  // 2 x 4 input, 1 x 3 filter: out is 2 x 2, each row correlated on its own.
  EXPECT_EQ(correlate({1, 2, 3, 4, 10, 20, 30, 40}, 2, 4, {1, 1, -1}, 1, 3), (std::vector<double>{0, 1, 0, 10}));
  // 3 x 2 input, 2 x 1 filter: vertical differences, out is 2 x 2.
  EXPECT_EQ(correlate({1, 2, 4, 8, 16, 32}, 3, 2, {-1, 1}, 2, 1), (std::vector<double>{3, 6, 12, 24}));
}

TEST(Conv2dReference, EdgeSizes) {
  EXPECT_EQ(correlate({-2}, 1, 1, {0.25}, 1, 1), (std::vector<double>{-0.5}));
  EXPECT_EQ(correlate({1, 2, 3, 4, 5, 6}, 2, 3, {1, 1, 1, 1, 1, 1}, 2, 3), (std::vector<double>{21}));  // filter = image
}

TEST(Conv2dReference, MatchesDirectSumOnGeneratedInputs) {
  const TaskSpec& t = get_task("conv_2d");
  const Shape s{{"input_rows", 257}, {"input_cols", 300}, {"kernel_rows", 9}, {"kernel_cols", 5}};
  const Args in = make_inputs(t, s, Precision::fp32, 4);
  const Args out = make_expected(t, s, Precision::fp32, in);
  const std::size_t oc = 296;
  ASSERT_EQ(out[2].data.size(), 249u * oc);
  for (std::size_t i : {std::size_t{0}, std::size_t{100}, std::size_t{248}})
    for (std::size_t j : {std::size_t{0}, std::size_t{7}, std::size_t{295}}) {
      double want = 0;
      for (std::size_t m = 0; m < 9; ++m)
        for (std::size_t n = 0; n < 5; ++n) want += in[0].data[(i + m) * 300 + j + n] * in[1].data[m * 5 + n];
      EXPECT_NEAR(out[2].data[i * oc + j], want, 1e-12) << i << "," << j;
    }
}

}  // namespace
