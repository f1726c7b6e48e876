// The hardware-analysis filter: per-class whitelists, the renderings, the JSON contract and the
// token target (filtered >= 30 % smaller than full on every captured export, by both rules).
#include <gtest/gtest.h>

#include <algorithm>

#include "cudamaster/profile/report.hpp"
#include "support/profile_fixtures.hpp"

using namespace cudamaster::profile;
using cmprof_test::fixture;
using cmprof_test::fixture_facts;

TEST(Tokens, CountingRule) {
  const TokenCount t = count_tokens("dram__throughput.avg = 85.83 %\n");
  EXPECT_EQ(t.chars, 31u);
  EXPECT_EQ(t.approx, 8u);  // ceil(31 / 4)
  // dram _ _ throughput . avg = 85 . 83 %
  EXPECT_EQ(t.pieces, 11u);
  EXPECT_EQ(count_tokens("").approx, 0u);
  EXPECT_EQ(count_tokens("abcd").approx, 1u);
  EXPECT_EQ(count_tokens("abcde").approx, 2u);
}

TEST(Tokens, FilteredIsAtLeast30PercentSmallerOnEveryFixture) {
  for (const auto& f : fixture_facts()) {
    SCOPED_TRACE(f.name);
    const ProfileOutcome o = analyze(load_ncu_csv(fixture(std::string(f.name) + ".csv")));
    const TokenReport r = token_report(o, f.name);
    EXPECT_GE(r.reduction_approx, 0.30);
    EXPECT_GE(r.reduction_pieces, 0.30);
    EXPECT_GT(r.filtered.approx, 50u);  // not trivially empty
    std::printf("%-22s full %6zu / filtered %4zu tokens (ceil(chars/4)): -%.1f %%;  pieces %6zu / %4zu: -%.1f %%\n",
                f.name, r.full.approx, r.filtered.approx, 100 * r.reduction_approx, r.full.pieces, r.filtered.pieces,
                100 * r.reduction_pieces);
  }
}

TEST(Render, FilteredShowsTheClassWhitelist) {
  const ProfileOutcome o = analyze(load_ncu_csv(fixture("stream_copy.csv")));
  const std::string s = render(o, RenderMode::filtered);
  EXPECT_EQ(s.rfind("bottleneck: memory-bandwidth (confidence ", 0), 0u) << s;
  EXPECT_NE(s.find("kernel: stream(const float4 *, const float4 *, float4 *, long long) grid (2112, 1, 1) block (256, 1, 1)"),
            std::string::npos) << s;
  EXPECT_NE(s.find("duration = 776.5 us\n"), std::string::npos) << s;
  EXPECT_NE(s.find("DRAM throughput = 85.83 %\n"), std::string::npos) << s;
  EXPECT_NE(s.find("DRAM bandwidth = 4.13 TB/s\n"), std::string::npos) << s;
  EXPECT_NE(s.find("L2 hit rate = "), std::string::npos);
  EXPECT_NE(s.find("top stalls = long_scoreboard 95 %"), std::string::npos) << s;
  EXPECT_EQ(s.find("FMA pipe"), std::string::npos);  // compute detail is not on the bandwidth list
  EXPECT_EQ(s.find("device__attribute"), std::string::npos);
  EXPECT_LT(std::count(s.begin(), s.end(), '\n'), 20);
}

TEST(Render, ComputeAndLatencyWhitelists) {
  const std::string fma = render(analyze(load_ncu_csv(fixture("fma_loop.csv"))), RenderMode::filtered);
  EXPECT_NE(fma.find("FMA pipe = "), std::string::npos) << fma;
  EXPECT_NE(fma.find("IPC = "), std::string::npos);
  EXPECT_EQ(fma.find("FP64 pipe"), std::string::npos);  // idle pipes (< 1 %) are left out
  EXPECT_EQ(fma.find("DRAM bandwidth"), std::string::npos);
  const std::string chase = render(analyze(load_ncu_csv(fixture("pointer_chase.csv"))), RenderMode::filtered);
  EXPECT_NE(chase.find("kernels: 2 launches"), std::string::npos) << chase;
  EXPECT_NE(chase.find("% of time, compute"), std::string::npos);         // build_perm
  EXPECT_NE(chase.find("% of time, memory-latency"), std::string::npos);  // chase
  EXPECT_NE(chase.find("time-weighted over 2 kernels (launch settings of #1):"), std::string::npos) << chase;
  EXPECT_NE(chase.find("occupancy limit (blocks/SM) = registers 16, warps 16, shared 32, blocks 32"), std::string::npos)
      << chase;
  EXPECT_NE(chase.find("theoretical occupancy = "), std::string::npos);
  EXPECT_NE(chase.find("occupancy limit (blocks/SM) = registers"), std::string::npos);
  EXPECT_NE(chase.find("eligible warps per cycle = "), std::string::npos);
}

TEST(Render, FullHasEverythingNoneHasNothing) {
  const ProfileOutcome o = analyze(load_ncu_csv(fixture("spmv_csr_vendor.csv")));
  const std::string full = render(o, RenderMode::full);
  for (const auto& k : o.data->kernels)
    for (const auto& m : k.metrics)
      if (!is_identification_column(m.name)) {
        EXPECT_NE(full.find(m.name + " = "), std::string::npos) << m.name;
      }
  EXPECT_NE(full.find("kernel #"), std::string::npos);
  EXPECT_EQ(render(o, RenderMode::none), "");
  EXPECT_EQ(parse_render_mode("full"), RenderMode::full);
  EXPECT_THROW(parse_render_mode("some"), std::invalid_argument);
}

TEST(Json, Contract) {
  const ProfileOutcome o = analyze(load_ncu_csv(fixture("dot_product_vendor.csv")));
  const auto j = to_json(o, RenderMode::filtered);
  EXPECT_EQ(j["class"], "memory-latency");
  EXPECT_EQ(j["source"], "ncu");
  EXPECT_TRUE(j["confidence"].is_number());
  EXPECT_TRUE(j["threshold"].is_number());
  EXPECT_TRUE(j["metrics"].contains("gpu__time_duration.sum"));
  EXPECT_EQ(j["metrics"]["gpu__time_duration.sum"]["label"], "duration");
  EXPECT_EQ(j["all_metrics"].size(), o.data->aggregate.metrics.size());
  EXPECT_EQ(j["all_metrics"]["gpu__time_duration.sum"]["value"], o.data->total_duration_ns);
  ASSERT_EQ(j["kernels"].size(), 2u);
  EXPECT_EQ(j["kernels"][0]["name"], o.data->kernels[0].name);
  EXPECT_TRUE(j["kernels"][0]["weight"].is_number());
  EXPECT_FALSE(j["kernels"][0].contains("all_metrics"));
  EXPECT_EQ(to_json(o, RenderMode::full)["kernels"][1]["all_metrics"].size(), o.data->kernels[1].metrics.size());
  EXPECT_TRUE(to_json(o, RenderMode::none)["metrics"].empty());
  EXPECT_EQ(to_json(o, RenderMode::none)["rendered"], "");
  EXPECT_FALSE(j["evidence"].empty());
  EXPECT_FALSE(j["units"].empty());
  EXPECT_EQ(j["stalls"][0]["reason"], "long_scoreboard");
}

TEST(Format, Values) {
  EXPECT_EQ(format_value(776512, "ns"), "776.5 us");
  EXPECT_EQ(format_value(512, "ns"), "512 ns");
  EXPECT_EQ(format_value(85.83, "%"), "85.83 %");
  EXPECT_EQ(format_value(4129851149756.86, "byte/s"), "4.13 TB/s");
  EXPECT_EQ(format_value(86038565619.93, "byte/s"), "86.04 GB/s");
  EXPECT_EQ(format_value(34194944, "inst"), "3.419e+07 inst");
  EXPECT_EQ(format_value(132, ""), "132");
  EXPECT_EQ(format_value(0, "%"), "0 %");
  EXPECT_EQ(format_value(0.05, "%"), "0.05 %");
}
