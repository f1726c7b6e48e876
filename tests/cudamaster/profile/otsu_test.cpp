// Otsu's method on synthetic data: known splits, degenerate inputs, and the defining property
// (the chosen split minimises the within-class variance) checked by brute force on random sets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "cudamaster/profile/otsu.hpp"

using namespace cudamaster::profile;

TEST(Otsu, TwoClearGroups) {
  const OtsuResult r = otsu_threshold({12, 1, 11, 2, 3, 10});
  EXPECT_DOUBLE_EQ(r.threshold, 6.5);
  EXPECT_EQ(r.low_count, 3u);
  EXPECT_EQ(r.high_count, 3u);
  EXPECT_DOUBLE_EQ(r.low_mean, 2);
  EXPECT_DOUBLE_EQ(r.high_mean, 11);
  EXPECT_GT(r.separability, 0.9);
  EXPECT_LE(r.separability, 1.0);
}

TEST(Otsu, UnequalGroupSizes) {
  // Eight idle units and two saturated ones: the split isolates the saturated pair.
  const OtsuResult r = otsu_threshold({0, 0.5, 1, 0, 2, 0, 1.5, 0, 90, 95});
  EXPECT_GT(r.threshold, 2);
  EXPECT_LT(r.threshold, 90);
  EXPECT_EQ(r.high_count, 2u);
}

TEST(Otsu, PerfectSeparationIsOne) {
  const OtsuResult r = otsu_threshold({5, 5, 5, 80, 80});
  EXPECT_DOUBLE_EQ(r.threshold, 42.5);
  EXPECT_DOUBLE_EQ(r.separability, 1.0);
}

TEST(Otsu, DegenerateInputs) {
  EXPECT_THROW(otsu_threshold({}), std::invalid_argument);
  const OtsuResult one = otsu_threshold({42});
  EXPECT_DOUBLE_EQ(one.threshold, 42);
  EXPECT_EQ(one.high_count, 0u);
  EXPECT_DOUBLE_EQ(one.separability, 0);
  const OtsuResult same = otsu_threshold({7, 7, 7, 7});
  EXPECT_EQ(same.high_count, 0u);
  EXPECT_EQ(same.low_count, 4u);
  EXPECT_DOUBLE_EQ(same.separability, 0);
  const OtsuResult two = otsu_threshold({3, 9});
  EXPECT_DOUBLE_EQ(two.threshold, 6);
  EXPECT_DOUBLE_EQ(two.separability, 1.0);
}

TEST(Otsu, AffineInvariance) {
  const std::vector<double> v = {3, 4, 5, 20, 21, 40, 41, 42};
  std::vector<double> w;
  for (double x : v) w.push_back(2.5 * x + 7);
  const OtsuResult a = otsu_threshold(v), b = otsu_threshold(w);
  EXPECT_DOUBLE_EQ(b.threshold, 2.5 * a.threshold + 7);
  EXPECT_NEAR(a.separability, b.separability, 1e-12);
  EXPECT_EQ(a.high_count, b.high_count);
}

// Maximising the between-class variance == minimising the within-class variance (Otsu 1979).
TEST(Otsu, MinimisesWithinClassVarianceOnRandomSets) {
  std::mt19937 rng(12345);
  std::uniform_real_distribution<double> u(0, 100);
  std::uniform_int_distribution<int> n_dist(2, 20);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> v(static_cast<std::size_t>(n_dist(rng)));
    for (auto& x : v) x = std::round(u(rng));  // rounding makes ties common
    const OtsuResult r = otsu_threshold(v);
    auto within = [&](double t) {
      double s0 = 0, s1 = 0, n0 = 0, n1 = 0;
      for (double x : v) {
        if (x <= t) {
          s0 += x;
          n0 += 1;
        } else {
          s1 += x;
          n1 += 1;
        }
      }
      const double m0 = n0 ? s0 / n0 : 0, m1 = n1 ? s1 / n1 : 0;
      double w = 0;
      for (double x : v) w += x <= t ? (x - m0) * (x - m0) : (x - m1) * (x - m1);
      return w / static_cast<double>(v.size());
    };
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    if (sorted.front() == sorted.back()) continue;
    const double best = within(r.threshold);
    for (std::size_t k = 1; k < sorted.size(); ++k) {
      if (sorted[k] == sorted[k - 1]) continue;
      EXPECT_LE(best, within(0.5 * (sorted[k - 1] + sorted[k])) + 1e-9) << "trial " << trial;
    }
    // total variance = within + between
    EXPECT_NEAR(r.total_variance, best + r.between_variance, 1e-6);
  }
}
