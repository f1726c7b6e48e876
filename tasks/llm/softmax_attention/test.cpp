// Hand-checked cases for the softmax_attention FP64 reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "mskb/core/instance.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;

namespace {

std::vector<double> run(int64_t q, int64_t kv, int64_t dqk, int64_t dv, const std::vector<double>& Q, const std::vector<double>& K,
                        const std::vector<double>& V) {
  const TaskSpec& t = get_task("softmax_attention");
  Args a(t.params.size());
  a[0].data.assign(static_cast<std::size_t>(q * dv), 0.0);
  a[1].data.assign(Q.begin(), Q.end());
  a[2].data.assign(K.begin(), K.end());
  a[3].data.assign(V.begin(), V.end());
  a[4].value = static_cast<double>(q);
  a[5].value = static_cast<double>(kv);
  a[6].value = static_cast<double>(dqk);
  a[7].value = static_cast<double>(dv);
  t.reference(Shape{{"q", q}, {"kv", kv}, {"dqk", dqk}, {"dv", dv}}, Precision::fp32, a);
  return {a[0].data.begin(), a[0].data.end()};
}

TEST(SoftmaxAttention, WeightsFromScores) {
  // Scores {0, ln 3}: weights {1/4, 3/4}; Y = 4/4 + 3*8/4 = 7.
  const auto y = run(1, 2, 1, 1, {1.0}, {0.0, std::log(3.0)}, {4.0, 8.0});
  EXPECT_NEAR(y[0], 7.0, 1e-14);
}

TEST(SoftmaxAttention, ScaleIsOneOverSqrtDimQk) {
  // dqk = 4: Q.K = {4, 0} -> scores {2, 0}; two output columns.
  const auto y = run(1, 2, 4, 2, {1, 1, 1, 1}, {1, 1, 1, 1, 0, 0, 0, 0}, {1, 0, 0, 1});
  const double w = std::exp(2.0) / (std::exp(2.0) + 1.0);
  EXPECT_NEAR(y[0], w, 1e-15);
  EXPECT_NEAR(y[1], 1.0 - w, 1e-15);
}

TEST(SoftmaxAttention, HugeScoresDoNotOverflow) {
  // Scores {1000, 999}: weights e/(e+1), 1/(e+1) (the raw exponentials overflow even in double).
  const auto y = run(1, 2, 1, 1, {1000.0}, {1.0, 0.999}, {1.0, 0.0});
  EXPECT_NEAR(y[0], std::exp(1.0) / (std::exp(1.0) + 1.0), 1e-12);
}

TEST(SoftmaxAttention, EqualScoresAverageAndSingleKeyCopies) {
  const auto avg = run(2, 3, 2, 1, {0, 0, 5, -5}, {1, 2, 3, 3, 7, 7}, {1, 2, 6});
  EXPECT_NEAR(avg[0], 3.0, 1e-14);  // row 0: Q = 0, all scores 0, Y = mean(V)
  // Row 1: Q = (5, -5): dots {5 - 10, 15 - 15, 35 - 35} = {-5, 0, 0}, scaled by 1/sqrt(2).
  const double a = std::exp(-5.0 / std::sqrt(2.0));
  EXPECT_NEAR(avg[1], (1.0 * a + 2.0 + 6.0) / (a + 2.0), 1e-14);
  const auto one = run(1, 1, 3, 3, {9, -9, 9}, {1, 2, 3}, {0.5, -0.25, 2.0});
  EXPECT_DOUBLE_EQ(one[0], 0.5);
  EXPECT_DOUBLE_EQ(one[1], -0.25);
  EXPECT_DOUBLE_EQ(one[2], 2.0);
}

TEST(SoftmaxAttention, GeneratorHasRowsThatOverflowWithoutTheMax) {
  // Row 0 is always a large-magnitude row: its largest score exceeds 88.7 (expf overflows beyond).
  const TaskSpec& t = get_task("softmax_attention");
  const Shape s{{"q", 128}, {"kv", 256}, {"dqk", 512}, {"dv", 512}};
  const Args in = make_inputs(t, s, Precision::bf16, 1);
  double best = -1e300;
  for (int j = 0; j < 256; ++j) {
    double dot = 0;
    for (int k = 0; k < 512; ++k) dot += in[1].data[static_cast<std::size_t>(k)] * in[2].data[static_cast<std::size_t>(j * 512 + k)];
    best = std::max(best, dot / std::sqrt(512.0));
  }
  EXPECT_GT(best, 88.8);
}

}  // namespace
