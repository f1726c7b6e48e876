// The spread model and its intervals (mskb/core/spread.hpp; docs/harness.md section 5): the
// model's JSON, bands, z, the combination of per-shape bounds, P's interval, the geometric-mean
// time's bound and the binomial bound, on hand-computed inputs; and the model compiled in.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "mskb/core/spread.hpp"

namespace mskb {
namespace {

using json = nlohmann::json;

// Two bands (< 100 us: 10%, >= 100 us: 2%), a 90% model, shapes independent unless told.
json two_band_model(double rho = 0, double common = 0) {
  return {{"format", 1},
          {"version", 7},
          {"quantile", 0.9},
          {"bands_us", {100.0}},
          {"scopes", {{"between_process", {{"call", {0.1, 0.02}}, {"device", {0.05, 0.01}}, {"common", common}, {"rho", rho}}}}}};
}

TEST(Spread, ParsesTheModelAndRefusesMalformedOnes) {
  const SpreadModel m = parse_spread_model(two_band_model(0.5, 0.01));
  EXPECT_EQ(m.version, 7);
  EXPECT_EQ(m.band(99.9), 0u);
  EXPECT_EQ(m.band(100), 1u);
  EXPECT_DOUBLE_EQ(m.bound(SpreadScope::between_process, 50), 0.1);
  EXPECT_DOUBLE_EQ(m.bound(SpreadScope::between_process, 500, TimeKind::device), 0.01);
  // A scope the file lacks takes the other's table.
  EXPECT_DOUBLE_EQ(m.bound(SpreadScope::between_lease, 50), 0.1);
  EXPECT_DOUBLE_EQ(m.table(SpreadScope::between_lease).rho, 0.5);
  EXPECT_FALSE(m.provisional);
  EXPECT_EQ(m.label(SpreadScope::between_process), "spread model v7 (90% intervals, between processes)");

  json bad = two_band_model();
  bad["scopes"]["between_process"]["call"] = {0.1};
  EXPECT_THROW(parse_spread_model(bad), std::invalid_argument);
  bad = two_band_model();
  bad["bands_us"] = {100.0, 50.0};
  EXPECT_THROW(parse_spread_model(bad), std::invalid_argument);
  bad = two_band_model();
  bad["quantile"] = 1.0;
  EXPECT_THROW(parse_spread_model(bad), std::invalid_argument);
  bad = two_band_model(1.5);
  EXPECT_THROW(parse_spread_model(bad), std::invalid_argument);
  EXPECT_THROW(parse_spread_model(json{{"format", 2}}), std::invalid_argument);
  // The GPU model it was measured on: said where another GPU model's numbers are judged by it.
  EXPECT_TRUE(m.gpu.empty());
  EXPECT_TRUE(m.measured_on("NVIDIA A100-SXM4-80GB"));  // not recorded: nothing to say
  json on = two_band_model();
  on["measured_on"] = {{"gpu", "NVIDIA H200"}, {"compute_capability", "9.0"}};
  const SpreadModel h200 = parse_spread_model(on);
  EXPECT_EQ(h200.gpu, "NVIDIA H200");
  EXPECT_TRUE(h200.measured_on("NVIDIA H200"));
  EXPECT_TRUE(h200.measured_on(""));
  EXPECT_TRUE(h200.measured_on("?"));
  EXPECT_FALSE(h200.measured_on("NVIDIA A100-SXM4-80GB"));
  EXPECT_FALSE(h200.measured_on("NVIDIA H200 NVL"));  // another product, another spread
  EXPECT_EQ(h200.label(SpreadScope::between_process, "NVIDIA H200"), "spread model v7 (90% intervals, between processes)");
  EXPECT_EQ(h200.label(SpreadScope::between_lease, "NVIDIA A100-SXM4-80GB"),
            "spread model v7 (90% intervals, between leases; measured on NVIDIA H200, not on NVIDIA A100-SXM4-80GB)");
  EXPECT_EQ(h200.summary(SpreadScope::between_lease, "NVIDIA H200")["measured_on"], "NVIDIA H200");
  EXPECT_FALSE(h200.summary(SpreadScope::between_lease, "NVIDIA H200").contains("other_gpu"));
  EXPECT_EQ(h200.summary(SpreadScope::between_lease, "NVIDIA A100-SXM4-80GB")["other_gpu"], "NVIDIA A100-SXM4-80GB");
  EXPECT_TRUE(m.summary(SpreadScope::between_lease)["measured_on"].is_null());
  for (const json& bad_on : {json("NVIDIA H200"), json::object(), json{{"gpu", ""}}}) {
    bad = two_band_model();
    bad["measured_on"] = bad_on;
    EXPECT_THROW(parse_spread_model(bad), std::invalid_argument) << bad_on.dump();
  }
  // No device bounds: the call bounds stand in.
  bad = two_band_model();
  bad["scopes"]["between_process"].erase("device");
  EXPECT_DOUBLE_EQ(parse_spread_model(bad).bound(SpreadScope::between_process, 50, TimeKind::device), 0.1);
}

TEST(Spread, QuantileZ) {
  json j = two_band_model();
  EXPECT_NEAR(parse_spread_model(j).z(), 1.6448536, 1e-6);
  j["quantile"] = 0.95;
  EXPECT_NEAR(parse_spread_model(j).z(), 1.9599640, 1e-6);
}

TEST(Spread, CombinesBoundsByCorrelation) {
  // sqrt(rho (sum w e)^2 + (1 - rho) sum (w e)^2) with w = 1/2, e = 0.1 and 0.2.
  EXPECT_NEAR(combine_bounds({0.5, 0.5}, {0.1, 0.2}, 0), std::sqrt(0.05 * 0.05 + 0.1 * 0.1), 1e-12);  // 0.1118
  EXPECT_NEAR(combine_bounds({0.5, 0.5}, {0.1, 0.2}, 1), 0.15, 1e-12);
  EXPECT_NEAR(combine_bounds({0.5, 0.5}, {0.1, 0.2}, 0.5), 0.1322876, 1e-6);
}

TEST(Spread, PIntervalWeighsShapesAsPDoes) {
  // Shape A: complexity 1, baseline 50 us, contender 25 us (s = 2, band 0: 10% both sides);
  // shape B: complexity 3, 400 us and 100 us (s = 4, band 1: 2%). P = (2 + 12) / 4 = 3.5,
  // P's weights u = (2, 12) / 14; h = sqrt(2) * sqrt((0.1 / 7)^2 + (0.02 * 6 / 7)^2) = 0.031558.
  const SpreadModel m = parse_spread_model(two_band_model());
  const std::vector<ShapeSpeedup> shapes = {{1, {50, 0}, {25, 0}}, {3, {400, 0}, {100, 0}}};
  const auto iv = p_interval(shapes, m, SpreadScope::between_process);
  ASSERT_TRUE(iv);
  EXPECT_NEAR(iv->value, 3.5, 1e-12);
  EXPECT_NEAR(iv->half_log, 0.0315582, 1e-6);
  EXPECT_NEAR(iv->lo, 3.391271, 1e-5);
  EXPECT_NEAR(iv->hi, 3.612215, 1e-5);
  EXPECT_TRUE(iv->contains(3.4));
  EXPECT_FALSE(iv->contains(3.62));

  // The contender's own noise on shape A (1%) widens its side: e = sqrt(0.1^2 + 2 z^2 0.01^2)
  // = 0.102670; with rho 0.5 both sides: h = 0.0387724.
  const SpreadModel m5 = parse_spread_model(two_band_model(0.5));
  EXPECT_NEAR(side_bound(m5, SpreadScope::between_process, {25, 0.01}), 0.1026699, 1e-6);
  const auto noisy = p_interval({{1, {50, 0}, {25, 0.01}}, {3, {400, 0}, {100, 0}}}, m5, SpreadScope::between_process);
  ASSERT_TRUE(noisy);
  EXPECT_NEAR(noisy->half_log, 0.0387724, 1e-6);

  // Nothing usable: no complexity, no time.
  EXPECT_FALSE(p_interval({{0, {50, 0}, {25, 0}}}, m, SpreadScope::between_process));
  EXPECT_FALSE(p_interval({{1, {50, 0}, {0, 0}}}, m, SpreadScope::between_process));
}

TEST(Spread, GeometricMeanTimeBoundAddsTheCommonShift) {
  // Shapes of 50 and 200 us (10%, 2%), rho 0.5, common 1%:
  // sqrt(0.5 * 0.06^2 + 0.5 * (0.05^2 + 0.01^2) + 0.01^2) = sqrt(0.0032).
  const SpreadModel m = parse_spread_model(two_band_model(0.5, 0.01));
  EXPECT_NEAR(time_half_log({{50, 0}, {200, 0}}, m, SpreadScope::between_process), std::sqrt(0.0032), 1e-12);
  // Device time uses its own bounds (5%, 1%).
  EXPECT_NEAR(time_half_log({{50, 0}, {200, 0}}, m, SpreadScope::between_process, TimeKind::device),
              std::sqrt(0.5 * 0.03 * 0.03 + 0.5 * (0.025 * 0.025 + 0.005 * 0.005) + 0.0001), 1e-12);
  EXPECT_DOUBLE_EQ(time_half_log({}, m, SpreadScope::between_process), 0);
  // Without the common term (a comparison that took the run's shift out itself).
  EXPECT_NEAR(time_half_log({{50, 0}, {200, 0}}, m, SpreadScope::between_process, TimeKind::call, true), std::sqrt(0.0031), 1e-12);
}

TEST(Spread, BinomialBoundOfChanceMisses) {
  // Binomial(10, 0.1): P(X <= 3) = 0.9872, P(X <= 4) = 0.9984.
  EXPECT_EQ(binomial_upper(10, 0.1, 0.01), 4);
  EXPECT_EQ(binomial_upper(10, 0.1, 0.05), 3);
  EXPECT_EQ(binomial_upper(0, 0.1, 0.01), 0);
  EXPECT_EQ(binomial_upper(1, 0.5, 0.5), 0);
  EXPECT_EQ(binomial_upper(5, 1.0, 0.01), 5);
}

TEST(Spread, SimultaneousBoundOfManyChecks) {
  EXPECT_NEAR(z_two_sided(0.99), 2.5758293, 1e-6);
  EXPECT_NEAR(z_two_sided(1 - 1e-9), 6.1094102, 1e-5);  // far in the tail, still exact
  // Sidak: each of m checks at 1 - (1 - alpha)^(1/m); in units of one q-interval.
  EXPECT_NEAR(simultaneous_factor(0.9, 265, 0.01), 2.5046423, 1e-5);
  EXPECT_NEAR(simultaneous_factor(0.95, 10, 0.05), 1.4284065, 1e-5);
  EXPECT_NEAR(simultaneous_factor(0.9, 1, 0.1), 1.0, 1e-9);  // one check at its own level: the interval itself
  EXPECT_DOUBLE_EQ(simultaneous_factor(0.9, 0, 0.01), 1.0);
  // More checks, a wider bound; never narrower than the interval.
  EXPECT_LT(simultaneous_factor(0.9, 10, 0.01), simultaneous_factor(0.9, 1000, 0.01));
  EXPECT_DOUBLE_EQ(simultaneous_factor(0.99, 1, 0.5), 1.0);
}

TEST(Spread, TheCompiledInModelIsTheDataFile) {
  std::ifstream in(std::string(MSKB_TEST_SOURCE_DIR) + "/data/spread_model.json");
  ASSERT_TRUE(in.good());
  const SpreadModel file = parse_spread_model(json::parse(in));
  const SpreadModel& m = spread_model();
  EXPECT_EQ(m.version, file.version);
  EXPECT_EQ(m.bands_us, file.bands_us);
  EXPECT_EQ(m.lease.call, file.lease.call);
  EXPECT_EQ(m.process.call, file.process.call);
  EXPECT_EQ(m.gpu, file.gpu);
  EXPECT_EQ(m.gpu, "NVIDIA H200");  // every pair it was fitted from ran on one
  EXPECT_EQ(m.bands_us.size() + 1, m.lease.call.size());
  EXPECT_GE(m.quantile, 0.5);
}

}  // namespace
}  // namespace mskb
