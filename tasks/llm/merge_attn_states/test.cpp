// Hand-checked cases for the merge_attn_states FP64 reference.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

struct Out {
  mskb::HostData v, lse;
};

// tokens x heads x hs values, heads x tokens LSEs.
Out run(int64_t t, int64_t h, int64_t d, const std::vector<double>& va, const std::vector<double>& la,
        const std::vector<double>& vb, const std::vector<double>& lb) {
  const TaskSpec& task = get_task("merge_attn_states");
  Args a(task.params.size());
  a[0].data.assign(va.size(), 0.0);
  a[1].data.assign(la.size(), 0.0);
  a[2].data.assign(va.begin(), va.end());
  a[3].data.assign(la.begin(), la.end());
  a[4].data.assign(vb.begin(), vb.end());
  a[5].data.assign(lb.begin(), lb.end());
  a[6].value = static_cast<double>(t);
  a[7].value = static_cast<double>(h);
  a[8].value = static_cast<double>(d);
  task.reference(Shape{{"num_tokens", t}, {"num_heads", h}, {"head_size", d}}, Precision::fp32, a);
  return {a[0].data, a[1].data};
}

TEST(MergeAttnStates, EqualLseAverages) {
  const Out o = run(1, 1, 2, {1, 3}, {0.5}, {3, -1}, {0.5});
  EXPECT_DOUBLE_EQ(o.v[0], 2.0);
  EXPECT_DOUBLE_EQ(o.v[1], 1.0);
  EXPECT_DOUBLE_EQ(o.lse[0], 0.5 + std::log(2.0));
}

TEST(MergeAttnStates, WeightsFollowTheLseDifference) {
  // lse_b = lse_a + ln 3: weights 1/4 and 3/4, LSE_out = lse_a + ln 4.
  const Out o = run(1, 1, 1, {4}, {1.0}, {8}, {1.0 + std::log(3.0)});
  EXPECT_NEAR(o.v[0], 4 * 0.25 + 8 * 0.75, 1e-14);
  EXPECT_NEAR(o.lse[0], 1.0 + std::log(4.0), 1e-14);
}

TEST(MergeAttnStates, HugeDifferencesPickOneSideWithoutOverflow) {
  // Differences of 200: the smaller side's weight is e^-200 (negligible), no inf/NaN.
  const Out o = run(2, 1, 1, {1, 2}, {-100, 100}, {5, 6}, {100, -100});
  EXPECT_DOUBLE_EQ(o.v[0], 5.0);  // token 0: b dominates
  EXPECT_DOUBLE_EQ(o.v[1], 2.0);  // token 1: a dominates
  EXPECT_DOUBLE_EQ(o.lse[0], 100.0);
  EXPECT_DOUBLE_EQ(o.lse[1], 100.0);
}

TEST(MergeAttnStates, LayoutsTokensHeadsAndHeadsTokens) {
  // 2 tokens x 2 heads x 1: V index t*2 + h, LSE index h*2 + t. Only (t=1, h=0) has lse_b >> lse_a.
  const Out o = run(2, 2, 1, {10, 20, 30, 40}, {0, 0, 0, 0}, {-1, -2, -3, -4}, {-50, 50, -50, -50});
  // LSE index 1 = (h=0, t=1) -> V index t*2+h = 2 takes V_b.
  EXPECT_NEAR(o.v[2], -3.0, 1e-12);
  EXPECT_NEAR(o.v[0], 10.0, 1e-12);
  EXPECT_NEAR(o.v[1], 20.0, 1e-12);
  EXPECT_NEAR(o.v[3], 40.0, 1e-12);
  EXPECT_NEAR(o.lse[1], 50.0, 1e-12);
}

TEST(MergeAttnStates, GeneratorHasOverflowingDifferencesAndTies) {
  const TaskSpec& t = get_task("merge_attn_states");
  const Args in = make_inputs(t, Shape{{"num_tokens", 512}, {"num_heads", 32}, {"head_size", 128}}, Precision::fp32, 1);
  // 16384 (head, token) pairs: ~10% ties, ~10% near ties (0 < |b - a| <= 1, beyond the ~0.2% of
  // independent pairs that close), and differences past exp's FP32 range either way.
  const std::size_t n = in[3].data.size();
  int overflow = 0, underflow = 0, ties = 0, near = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double diff = in[5].data[i] - in[3].data[i];
    overflow += diff > 89.0;
    underflow += diff < -89.0;
    ties += diff == 0.0;
    near += diff != 0.0 && std::fabs(diff) <= 1.0;
  }
  EXPECT_NEAR(ties, 0.1 * static_cast<double>(n), 0.015 * static_cast<double>(n));
  EXPECT_NEAR(near, 0.102 * static_cast<double>(n), 0.015 * static_cast<double>(n));
  EXPECT_GT(overflow, 1000);
  EXPECT_GT(underflow, 1000);
  for (std::size_t k : {std::size_t{2}, std::size_t{4}})
    for (double v : in[k].data) ASSERT_LE(std::fabs(v), 2.0);
  for (std::size_t k : {std::size_t{3}, std::size_t{5}})
    for (double v : in[k].data) ASSERT_LE(std::fabs(v), 101.0);
}

}  // namespace
