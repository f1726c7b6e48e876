#include <gtest/gtest.h>

#include "mskb/harness/evaluator.hpp"
#include "mskb/core/scoring.hpp"
#include "mskb/harness/suite.hpp"
#include "mskb/report/document.hpp"
#include "mskb/report/html.hpp"
#include "mskb/report/markdown.hpp"
#include "mskb/report/numbers.hpp"
#include "mskb/report/text.hpp"

using namespace mskb;

TEST(Scoring, ComplexityWeightedSpeedup) {
  // P = (1*2 + 3*4) / (1 + 3) = 3.5: the large size dominates.
  auto p = complexity_weighted({{1, 2.0}, {3, 4.0}});
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(*p, 3.5);
  EXPECT_FALSE(complexity_weighted({}));
  // 64-bit complexities do not overflow.
  auto big = complexity_weighted({{uint64_t{1} << 62, 2.0}, {uint64_t{1} << 62, 4.0}});
  EXPECT_DOUBLE_EQ(*big, 3.0);
}

TEST(Scoring, Geomean) {
  EXPECT_DOUBLE_EQ(*geomean({2.0, 8.0}), 4.0);
  EXPECT_FALSE(geomean({}));
  EXPECT_FALSE(geomean({1.0, 0.0}));
}

TEST(Scoring, RatiosAreFasterIsGreater) {
  EXPECT_DOUBLE_EQ(speedup(10.0, 5.0), 2.0);
  EXPECT_DOUBLE_EQ(ratio_vs_vendor(4.0, 8.0), 0.5);
  EXPECT_DOUBLE_EQ(sol_fraction(1.0, 4.0), 0.25);
}

TEST(Scoring, Roofline) {
  Ceilings c{4000, 50, 800};
  // 4 GB at 4000 GB/s = 1 ms; 1 GFLOP at 50 TFLOP/s = 20 us: memory bound.
  EXPECT_NEAR(roofline_us(4e9, 1e9, false, c), 1000.0, 1e-9);
  // 1 TFLOP fp32 = 20 ms; as bf16 tensor work at 800 TFLOP/s = 1.25 ms.
  EXPECT_NEAR(roofline_us(1e6, 1e12, false, c), 20000.0, 1e-6);
  EXPECT_NEAR(roofline_us(1e6, 1e12, true, c), 1250.0, 1e-6);
  EXPECT_EQ(roofline_us(1, 1, false, Ceilings{}), 0.0);
}

TEST(Scoring, Suite) {
  auto s = summarize_suite({3.0, 1.2, 0.5, std::nullopt});
  EXPECT_EQ(s.tasks, 4);
  EXPECT_EQ(s.correct, 3);
  EXPECT_DOUBLE_EQ(s.success_rate, 0.5);
  EXPECT_DOUBLE_EQ(s.fast_1_5, 0.25);
  EXPECT_DOUBLE_EQ(s.fast_2, 0.25);
  EXPECT_NEAR(s.mean_p, (3.0 + 1.2 + 0.5) / 3, 1e-12);
}

TEST(TimingPolicy, Dispositions) {
  TimingPolicy p;
  TimingStats t;
  t.median_us = 100;
  t.noise = 0.001;
  EXPECT_EQ(judge_timing(t, 20, p), mskb::Disposition::passed);
  EXPECT_EQ(judge_timing(t, 250, p), mskb::Disposition::too_fast);  // 100 us < half of a 250 us floor
  t.wall_gap_max_us = 5000;  // one hiccup among the samples: not judged
  t.wall_gap_p90_us = 10;
  EXPECT_EQ(judge_timing(t, 20, p), mskb::Disposition::passed);
  t.wall_gap_p90_us = 5000;  // at least a tenth of the calls left the device busy
  EXPECT_EQ(judge_timing(t, 20, p), mskb::Disposition::unsynced);
  t.wall_gap_max_us = t.wall_gap_p90_us = 10;
  t.noise = 0.05;
  EXPECT_EQ(judge_timing(t, 20, p), mskb::Disposition::noisy);
  EXPECT_EQ(judge_check_gap(30, 10, p), mskb::Disposition::passed);
  EXPECT_EQ(judge_check_gap(3000, 10, p), mskb::Disposition::unsynced);
}

TEST(TimingStats, GapP90IgnoresOneOutlierButNotARepeatedGap) {
  EXPECT_EQ(p90_lower({}), 0);
  EXPECT_EQ(p90_lower({7}), 7);
  EXPECT_EQ(p90_lower({3, 4000, 5}), 5);  // median of three
  std::vector<double> ten(10, 4.0);
  ten[3] = 900;  // one hiccup in ten calls
  EXPECT_EQ(p90_lower(ten), 4);
  ten[7] = 800;  // two of ten: a pattern
  EXPECT_EQ(p90_lower(ten), 800);
  std::vector<double> many(1000, 5.0);
  for (int i = 0; i < 100; ++i) many[static_cast<std::size_t>(i * 10)] = 300;  // every tenth call
  EXPECT_EQ(p90_lower(many), 5);
  many[1] = 300;  // one more than a tenth
  EXPECT_EQ(p90_lower(many), 300);
}

TEST(TimingStats, OldReportsWithoutP90JudgeTheMaximum) {
  TimingStats t;
  from_json(nlohmann::json{{"median", 10.0}, {"wall_gap_max_us", 700.0}}, t);
  EXPECT_EQ(t.wall_gap_p90_us, 700);
  from_json(nlohmann::json{{"median", 10.0}, {"wall_gap_max_us", 700.0}, {"wall_gap_p90_us", 6.0}}, t);
  EXPECT_EQ(t.wall_gap_p90_us, 6);
}

TEST(TimingStats, Summary) {
  auto t = summarize_samples({5, 1, 3, 2, 4});
  EXPECT_EQ(t.n, 5);
  EXPECT_DOUBLE_EQ(t.median_us, 3);
  EXPECT_DOUBLE_EQ(t.min_us, 1);
  EXPECT_DOUBLE_EQ(t.max_us, 5);
  EXPECT_DOUBLE_EQ(t.mean_us, 3);
  EXPECT_NEAR(t.noise, std::sqrt(2.5) / std::sqrt(5.0) / 3.0, 1e-12);
}

TEST(RunnerEnvironment, AddsHugePagesToGlibcTunablesWithoutLosingTheCallers) {
  using Env = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(runner_environment({}, nullptr), (Env{{"GLIBC_TUNABLES", "glibc.malloc.hugetlb=1"}}));
  EXPECT_EQ(runner_environment({{"CUDA_VISIBLE_DEVICES", "1"}}, "glibc.malloc.arena_max=2"),
            (Env{{"CUDA_VISIBLE_DEVICES", "1"}, {"GLIBC_TUNABLES", "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"}}));
  // The caller's own hugetlb choice stands (0 turns it off).
  EXPECT_EQ(runner_environment({}, "glibc.malloc.hugetlb=0"), (Env{{"GLIBC_TUNABLES", "glibc.malloc.hugetlb=0"}}));
  EXPECT_EQ(runner_environment({{"GLIBC_TUNABLES", "glibc.malloc.tcache_count=0"}}, "ignored"),
            (Env{{"GLIBC_TUNABLES", "glibc.malloc.tcache_count=0:glibc.malloc.hugetlb=1"}}));
}

namespace {
// A vector_add fp32 contender that passed, for report tests.
ContenderRun passed_run(const std::string& contender) {
  ContenderRun r;
  r.result.task = "vector_add";
  r.result.precision = "fp32";
  r.result.contender = contender;
  r.result.disposition = mskb::Disposition::passed;
  return r;
}

SuiteReport fake_report() {
  SuiteReport rep;
  rep.device = {{"name", "Fake H200"}, {"sms", 132}};
  return rep;
}
}  // namespace

// A partial report of a two-phase run says which contenders passed their checks but are not yet
// timed, in the JSON and the Markdown; a merged report keeps it.
TEST(SuiteReportJson, TimingPendingIsVisible) {
  SuiteReport rep = fake_report();
  rep.partial = true;
  ContenderRun done = passed_run("baseline"), pending = passed_run("vendor");
  pending.timing_pending = true;
  rep.runs = {done, pending};
  const nlohmann::json j = report_json(rep);
  ASSERT_EQ(j["contenders"].size(), 2u);
  EXPECT_FALSE(j["contenders"][0].contains("timing_pending"));
  EXPECT_EQ(j["contenders"][1]["timing_pending"], true);
  const std::string md = render_markdown(merge_reports({j}));
  EXPECT_NE(md.find("| vector_add | fp32 | vendor | passed (checks; timing pending) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| vector_add | fp32 | baseline | passed |"), std::string::npos) << md;
  EXPECT_NE(md.find("Partial report"), std::string::npos);
}

// A timing with other processes on its GPU (reported by the runner from NVML) is named in the
// JSON, at the top of the Markdown and under the console table, through a merge; none or unknown
// is silent, and old reports without the field read as unknown.
TEST(SuiteReportJson, TimingsBesideOtherGpuProcessesAreNamed) {
  SuiteReport rep = fake_report();
  ContenderRun base = passed_run("baseline"), vend = passed_run("vendor");
  ShapeTiming alone, shared, unknown;
  alone.sweep = shared.sweep = unknown.sweep = mskb::Sweep::paper;
  alone.shape = {{"N", 1024}};
  shared.shape = {{"N", 4096}};
  unknown.shape = {{"N", 16384}};
  alone.time.median_us = shared.time.median_us = unknown.time.median_us = 10;
  alone.time.gpu_others = 0;
  shared.time.gpu_others = 2;
  shared.time.gpu_other_pids = {4242, 777};
  base.result.timings = {alone, shared, unknown};
  vend.result.timings = {alone};
  rep.runs = {base, vend};
  const nlohmann::json j = report_json(rep);
  ASSERT_EQ(j["results"].size(), 4u);
  EXPECT_EQ(j["results"][0]["gpu_others"], 0);
  EXPECT_FALSE(j["results"][0].contains("gpu_other_pids"));
  EXPECT_EQ(j["results"][1]["gpu_others"], 2);
  EXPECT_EQ(j["results"][1]["gpu_other_pids"], (nlohmann::json{4242, 777}));
  EXPECT_TRUE(j["results"][2]["gpu_others"].is_null());
  const std::string md = render_markdown(merge_reports({j}));
  EXPECT_NE(md.find("WARNING: 1 timed shape(s) ran while other processes held a context on the GPU"), std::string::npos) << md;
  EXPECT_NE(md.find("- vector_add fp32 baseline paper N=4096 (PID 4242 777)"), std::string::npos) << md;
  EXPECT_EQ(md.find("N=1024 (PID"), std::string::npos) << md;
  EXPECT_NE(render_table(report_json(rep)).find("WARNING: 1 timed shape(s)"), std::string::npos);
  EXPECT_EQ(md.find("--timing-overlap"), std::string::npos) << "one timing at a time: no word on overlap\n" << md;
  // With overlapping timing parts the warning says the run's own waiting processes are among them.
  nlohmann::json overlapped = j;
  overlapped["device"]["timing_overlap"] = 3;
  EXPECT_NE(render_markdown(overlapped).find("This run timed 3 contenders per GPU at once (--timing-overlap 3)"), std::string::npos);
  const std::string html = render_run_html(run_report_data(overlapped), "run.json");
  EXPECT_NE(html.find("This run timed 3 contenders per GPU at once (--timing-overlap 3)"), std::string::npos);
  EXPECT_EQ(render_run_html(run_report_data(j), "run.json").find("--timing-overlap"), std::string::npos);

  // Nothing shared, or not known: no warning.
  rep.runs[0].result.timings = {alone, unknown};
  EXPECT_EQ(render_markdown(report_json(rep)).find("WARNING"), std::string::npos);
  EXPECT_EQ(render_table(report_json(rep)).find("WARNING"), std::string::npos);
}

TEST(TimingStats, GpuOthersRoundTripAndOldReportsAreUnknown) {
  TimingStats t;
  t.median_us = 5;
  t.gpu_others = 1;
  t.gpu_other_pids = {99};
  nlohmann::json j = t;
  TimingStats back;
  from_json(j, back);
  EXPECT_EQ(back.gpu_others, 1);
  EXPECT_EQ(back.gpu_other_pids, (std::vector<uint64_t>{99}));
  from_json(nlohmann::json{{"median", 5.0}}, back);
  EXPECT_EQ(back.gpu_others, -1);
  EXPECT_TRUE(back.gpu_other_pids.empty());
  TimingStats unknown;  // not known: not written
  EXPECT_FALSE(nlohmann::json(unknown).contains("gpu_others"));
}
