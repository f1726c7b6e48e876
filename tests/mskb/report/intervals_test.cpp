// P's intervals in the reports and mskb rerun's judgement by the spread model
// (mskb/report/intervals.hpp, mskb/report/rerun.hpp; docs/harness.md section 5), on the committed
// H200 suite run (tests/fixtures/h200/run.json) and reruns of it synthesised by scaling times
// inside and outside the bounds of a hand-made model.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "mskb/report/cells.hpp"
#include "mskb/report/csv.hpp"
#include "mskb/report/html.hpp"
#include "mskb/report/intervals.hpp"
#include "mskb/report/markdown.hpp"
#include "mskb/report/numbers.hpp"
#include "mskb/report/rerun.hpp"
#include "mskb/report/text.hpp"

using json = nlohmann::json;

namespace mskb {
namespace {

json h200_run() {
  static const json run = [] {
    std::ifstream f(std::string(MSKB_TEST_SOURCE_DIR) + "/tests/fixtures/h200/run.json");
    return json::parse(f);
  }();
  return run;
}

// The scores again from the results: P = sum c_i s_i / sum c_i against the baseline's times.
void rescore(json& run) {
  std::map<std::string, double> base;
  auto key = [](const json& r, const std::string& who) {
    return r["task"].get<std::string>() + "|" + r["precision"].get<std::string>() + "|" + who + "|" + r["sweep"].get<std::string>() + "|" +
           report::shape_label(r["shape"]);
  };
  for (const json& r : run["results"])
    if (r["contender"] == "baseline" && r.contains("time_us")) base[key(r, "baseline")] = r["time_us"]["median"];
  std::map<std::string, std::pair<double, double>> sums;  // entry -> (sum c s, sum c)
  for (const json& r : run["results"]) {
    const auto b = base.find(key(r, "baseline"));
    if (b == base.end() || !r.contains("time_us")) continue;
    const double c = r["complexity"].get<double>();
    auto& s = sums[r["task"].get<std::string>() + "|" + r["precision"].get<std::string>() + "|" + r["contender"].get<std::string>() + "|" +
                   r["sweep"].get<std::string>()];
    s.first += c * b->second / r["time_us"]["median"].get<double>();
    s.second += c;
  }
  for (json& s : run["scores"]) {
    const auto it = sums.find(s["task"].get<std::string>() + "|" + s["precision"].get<std::string>() + "|" + s["contender"].get<std::string>() + "|" +
                              s["sweep"].get<std::string>());
    if (it != sums.end() && s["P"].is_number()) s["P"] = it->second.first / it->second.second;
  }
}

// A copy of the run with the times of the results `which` selects scaled (call time, and device
// time by `device_factor` when the results carry it), rescored.
json scaled(const json& run, const std::function<bool(const json&)>& which, double factor, double device_factor = 0) {
  json out = run;
  for (json& r : out["results"]) {
    if (!which(r) || !r.contains("time_us")) continue;
    r["time_us"]["median"] = r["time_us"]["median"].get<double>() * factor;
    if (r.contains("device_us")) r["device_us"] = r["device_us"].get<double>() * (device_factor > 0 ? device_factor : factor);
  }
  rescore(out);
  return out;
}

bool everything(const json&) { return true; }
bool dot_vendor(const json& r) { return r["task"] == "dot_product" && r["precision"] == "fp32" && r["contender"] == "vendor"; }
bool any_vendor(const json& r) { return r["contender"] == "vendor"; }

// The H200 run with a device time on every timed shape (80% of its call time), rescored.
json h200_run_with_device_times() {
  json run = h200_run();
  for (json& r : run["results"])
    if (r.contains("time_us")) r["device_us"] = r["time_us"]["median"].get<double>() * 0.8;
  rescore(run);
  return run;
}

// Every band 5% between processes, 20% between leases, runs as a whole half that; shapes
// correlated by 0.5; 95% intervals.
SpreadModel hand_model(double process = 0.05, double lease = 0.2) {
  auto table = [](double b) { return json{{"call", {b, b}}, {"device", {b, b}}, {"common", b / 2}, {"rho", 0.5}}; };
  return parse_spread_model({{"format", 1},
                             {"version", 3},
                             {"quantile", 0.95},
                             {"bands_us", {100.0}},
                             {"scopes", {{"between_process", table(process)}, {"between_lease", table(lease)}}}});
}

const json& entry(const json& cmp, const std::string& task, const std::string& precision, const std::string& who) {
  for (const json& e : cmp["entries"])
    if (e["task"] == task && e["precision"] == precision && e["contender"] == who) return e;
  throw std::runtime_error("no entry " + task + " " + who);
}

std::string joined(const json& reasons) {
  std::string s;
  for (const json& r : reasons) s += r.get<std::string>() + "\n";
  return s;
}

TEST(Intervals, EveryContenderButTheBaselineHasOneAroundItsP) {
  json run = h200_run();
  const auto intervals = p_intervals(run);
  ASSERT_GT(intervals.size(), 100u);
  for (const auto& [k, iv] : intervals) {
    EXPECT_NE(std::get<2>(k), "baseline");
    EXPECT_LT(iv.lo, iv.value);
    EXPECT_GT(iv.hi, iv.value);
    EXPECT_NEAR(iv.lo * iv.hi, iv.value * iv.value, 1e-9 * iv.value * iv.value);  // symmetric in log
  }
  // The JSON report: P_interval around the score's own P, and the model named.
  add_p_intervals(run);
  int with = 0;
  for (const json& s : run["scores"]) {
    if (!s.contains("P_interval")) continue;
    ++with;
    const double P = s["P"], lo = s["P_interval"][0], hi = s["P_interval"][1];
    EXPECT_LT(lo, P);
    EXPECT_GT(hi, P);
    const Interval* iv = find_interval(intervals, {s["task"], s["precision"], s["contender"], s["sweep"]});
    ASSERT_NE(iv, nullptr);
    EXPECT_NEAR(std::log(hi / P), iv->half_log, 1e-9);
  }
  EXPECT_EQ(with, static_cast<int>(intervals.size()));
  EXPECT_EQ(run["spread_model"]["scope"], "between_lease");
  EXPECT_EQ(run["spread_model"]["version"], spread_model().version);
  // A larger spread gives a wider interval; a narrower model a narrower one.
  const auto wide = p_intervals(run, hand_model(0.05, 0.2)), narrow = p_intervals(run, hand_model(0.05, 0.01));
  const EntryKey k{"dot_product", "fp32", "vendor", "paper"};
  ASSERT_TRUE(find_interval(wide, k) && find_interval(narrow, k));
  EXPECT_GT(find_interval(wide, k)->half_log, 5 * find_interval(narrow, k)->half_log);
}

TEST(Intervals, EveryRenderingShowsPWithItsInterval) {
  json run = h200_run();
  add_p_intervals(run);
  const std::regex cell(R"(\d+\.\d\d \[\d+\.\d\d, \d+\.\d\d\])");
  const std::string table = render_table(run);
  EXPECT_NE(table.find("P [interval]"), std::string::npos);
  EXPECT_TRUE(std::regex_search(table, cell)) << table.substr(0, 2000);
  EXPECT_NE(table.find("P [lo, hi]: where P of another run would fall"), std::string::npos);
  const std::string md = render_markdown(run);
  EXPECT_NE(md.find("P [interval]"), std::string::npos);
  EXPECT_TRUE(std::regex_search(md, cell));
  const json data = run_report_data(run);
  const std::string csv = render_run_csv(data);
  EXPECT_NE(csv.find(",P_paper,P_lo_paper,P_hi_paper,"), std::string::npos) << csv.substr(0, 300);
  const std::string html = render_run_html(data, "run.json");
  EXPECT_TRUE(std::regex_search(html, cell));
  // The entries of mskb report carry it too.
  bool seen = false;
  for (const json& e : data["entries"])
    if (e["contender"] == "vendor" && e["sweeps"].contains("paper") && e["sweeps"]["paper"].contains("P_interval")) seen = true;
  EXPECT_TRUE(seen);
  EXPECT_EQ(p_with_interval(json(1.5), json({1.25, 1.75})), "1.50 [1.25, 1.75]");
  EXPECT_EQ(p_with_interval(json(1.5), json()), "1.50");
  EXPECT_EQ(p_with_interval(json(), json()), "-");
}

// The model compiled in was measured on the H200: a report from another GPU model keeps its
// intervals (the only measured ones) and says in every rendering and in mskb rerun whose they are.
TEST(Intervals, AReportFromAnotherGpuModelSaysWhoseSpreadItsIntervalsAre) {
  const std::string a100 = "NVIDIA A100-SXM4-80GB";
  ASSERT_EQ(spread_model().gpu, "NVIDIA H200");
  json h200 = h200_run();
  add_p_intervals(h200);
  EXPECT_EQ(h200["spread_model"]["measured_on"], "NVIDIA H200");
  EXPECT_FALSE(h200["spread_model"].contains("other_gpu"));
  EXPECT_EQ(render_table(h200).find("guide only"), std::string::npos);
  json run = h200_run();
  run["device"]["name"] = a100;
  add_p_intervals(run);
  EXPECT_EQ(run["spread_model"]["other_gpu"], a100);
  EXPECT_EQ(p_intervals(run).size(), p_intervals(h200).size());  // the intervals stay, said as the H200's
  const std::string said = "measured on NVIDIA H200, not on " + a100;
  const std::string table = render_table(run), md = render_markdown(run), html = render_run_html(run_report_data(run), "run.json");
  for (const std::string* out : {&table, &md, &html}) {
    EXPECT_NE(out->find(said), std::string::npos) << out->substr(0, 300);
    EXPECT_NE(out->find("a guide only until the model is refitted on this GPU"), std::string::npos);
  }
  // mskb rerun of the A100 report: the same note, and the verdict's model names it.
  json fresh = scaled(run, everything, 1.02);
  const json cmp = rerun_comparison(run, fresh, RerunJudge{std::nullopt, &spread_model()});
  EXPECT_NE(cmp["judge"]["label"].get<std::string>().find(said), std::string::npos) << cmp["judge"];
  EXPECT_EQ(cmp["judge"]["model"]["other_gpu"], a100);
  EXPECT_NE(joined(cmp["notes"]).find("the spread model was measured on NVIDIA H200, not on " + a100), std::string::npos) << joined(cmp["notes"]);
  EXPECT_NE(render_rerun_text(cmp).find("a guide only until the model is refitted"), std::string::npos);
  const json same = rerun_comparison(h200, scaled(h200, everything, 1.02), RerunJudge{std::nullopt, &spread_model()});
  EXPECT_EQ(joined(same["notes"]).find("the spread model was measured on"), std::string::npos) << joined(same["notes"]);
}

TEST(RerunByModel, TimesInsideTheBoundsReproduceAndBothCommitsAreNamed) {
  json old = h200_run();
  rescore(old);
  old["reproduce"] = {{"tool", {{"commit", "aaaaaaa"}}}};
  json fresh = scaled(old, everything, 1.02);  // 2% slower everywhere: inside 5% per shape
  fresh["reproduce"] = {{"tool", {{"commit", "bbbbbbb"}}}};
  const SpreadModel m = hand_model();
  const json cmp = rerun_comparison(old, fresh, RerunJudge{std::nullopt, &m});
  EXPECT_EQ(cmp["scope"], "between_process");  // the same GPU UUID
  EXPECT_EQ(cmp["summary"]["differ"], 0) << rerun_differences(cmp).front();
  EXPECT_EQ(cmp["summary"]["outside"], 0);
  EXPECT_TRUE(rerun_consistent(cmp));
  EXPECT_GT(cmp["summary"]["checks"].get<int>(), 186);
  const json& v = entry(cmp, "dot_product", "fp32", "vendor")["sweeps"][0];
  EXPECT_TRUE(v["P_interval"].is_array());
  EXPECT_NEAR(v["time_ratio"].get<double>(), 1.02, 1e-9);
  EXPECT_FALSE(entry(cmp, "dot_product", "fp32", "baseline")["sweeps"][0].contains("P_interval"));  // P = 1 by definition
  const std::string text = render_rerun_text(cmp);
  EXPECT_NE(text.find("mskb rerun: the report (commit aaaaaaa on NVIDIA H200) run again (commit bbbbbbb on NVIDIA H200), judged by the "
                      "spread model v3 (95% intervals, between processes)"),
            std::string::npos)
      << text.substr(0, 400);
  EXPECT_NE(text.find("reproduced 186 of 186 entries within their intervals"), std::string::npos);
}

TEST(RerunByModel, AnotherGpuIsJudgedBetweenLeases) {
  json old = h200_run();
  rescore(old);
  json fresh = scaled(old, everything, 1.06);  // outside 1% between processes, inside 20% between leases
  const SpreadModel m = hand_model(0.01, 0.2);
  EXPECT_FALSE(rerun_consistent(rerun_comparison(old, fresh, RerunJudge{std::nullopt, &m})));
  fresh["device"]["uuid"] = "GPU-another";
  const json cmp = rerun_comparison(old, fresh, RerunJudge{std::nullopt, &m});
  EXPECT_EQ(cmp["scope"], "between_lease");
  EXPECT_EQ(cmp["summary"]["differ"], 0);
  EXPECT_TRUE(rerun_consistent(cmp));
}

TEST(RerunByModel, AnEntryOutsideItsIntervalIsNamedAndChanceIsWeighed) {
  json old = h200_run();
  rescore(old);
  const SpreadModel m = hand_model();
  // One entry 1.5x slower: outside its P and time intervals, named with what moved, and far beyond
  // what chance gives even among hundreds of checks: the rerun differs (a count of checks outside
  // alone would have let one regressed entry through).
  json cmp = rerun_comparison(old, scaled(old, dot_vendor, 1.5), RerunJudge{std::nullopt, &m});
  const json& e = entry(cmp, "dot_product", "fp32", "vendor");
  EXPECT_FALSE(e["reproduced"].get<bool>());
  EXPECT_EQ(e["verdict"], "differs");
  const std::string why = joined(e["reasons"]);
  EXPECT_NE(why.find("paper: median time x1.5 the report's"), std::string::npos) << why;
  EXPECT_NE(why.find("beside the run's shift x1 at its time scales"), std::string::npos) << why;
  EXPECT_NE(why.find("outside its bound +-"), std::string::npos) << why;
  EXPECT_NE(why.find(", outside ["), std::string::npos) << why;  // P's interval
  EXPECT_NE(why.find("the baseline's time x1, the contender's x1.5"), std::string::npos) << why;
  EXPECT_NE(why.find("moved most: "), std::string::npos) << why;
  EXPECT_EQ(cmp["summary"]["differ"], 1);
  EXPECT_EQ(cmp["summary"]["outside"], 4);  // time and P, paper and large
  EXPECT_EQ(cmp["summary"]["beyond"], 4);
  EXPECT_GE(cmp["summary"]["allowed_outside"].get<int>(), 4);
  EXPECT_FALSE(rerun_consistent(cmp)) << rerun_summary_line(cmp);
  EXPECT_NE(rerun_summary_line(cmp).find("; 1 differ; 4 of "), std::string::npos) << rerun_summary_line(cmp);
  EXPECT_NE(rerun_summary_line(cmp).find("4 beyond the simultaneous bound ("), std::string::npos) << rerun_summary_line(cmp);
  EXPECT_NE(render_rerun_text(cmp).find("differs: dot_product fp32 vendor: paper: median time x1.5"), std::string::npos);

  // The same entry 1.5 bounds out in its paper sweep: outside its interval, inside the simultaneous
  // bound of the run's checks (about 2.1 intervals here): what chance gives among that many.
  const double h = std::log(entry(rerun_comparison(old, old, RerunJudge{std::nullopt, &m}), "dot_product", "fp32", "vendor")["sweeps"][0]["time_bound"][1]
                                .get<double>());
  auto dot_vendor_paper = [](const json& r) { return dot_vendor(r) && r["sweep"] == "paper"; };
  cmp = rerun_comparison(old, scaled(old, dot_vendor_paper, std::exp(1.5 * h)), RerunJudge{std::nullopt, &m});
  const json& c = entry(cmp, "dot_product", "fp32", "vendor");
  EXPECT_EQ(c["verdict"], "chance") << joined(c["reasons"]);
  EXPECT_TRUE(c["reproduced"].get<bool>());
  EXPECT_NEAR(c["sweeps"][0]["time_dev"].get<double>(), 1.5, 1e-6);
  EXPECT_LT(cmp["summary"]["simultaneous_factor"].get<double>(), 2.5);
  EXPECT_GT(cmp["summary"]["simultaneous_factor"].get<double>(), 1.5);
  EXPECT_EQ(cmp["summary"]["differ"], 0);
  EXPECT_TRUE(rerun_consistent(cmp)) << rerun_summary_line(cmp);
  EXPECT_NE(rerun_summary_line(cmp).find("reproduced 186 of 186 entries (185 within their intervals, 1 outside by no more than chance gives among "),
            std::string::npos)
      << rerun_summary_line(cmp);
  EXPECT_NE(render_rerun_text(cmp).find("outside by chance: dot_product fp32 vendor: paper: median time"), std::string::npos);

  // Every vendor 1.5x slower: far more than chance.
  cmp = rerun_comparison(old, scaled(old, any_vendor, 1.5), RerunJudge{std::nullopt, &m});
  EXPECT_FALSE(rerun_consistent(cmp));
  EXPECT_NE(rerun_summary_line(cmp).find("more than chance explains"), std::string::npos) << rerun_summary_line(cmp);
  // A flat tolerance replaces the model: 1.5x is within 60%.
  cmp = rerun_comparison(old, scaled(old, dot_vendor, 1.5), 0.6);
  EXPECT_TRUE(entry(cmp, "dot_product", "fp32", "vendor")["reproduced"].get<bool>());
  EXPECT_EQ(cmp["judge"]["kind"], "tolerance");
  EXPECT_TRUE(rerun_consistent(cmp));
}

// A machine whose host path is slower moves every call time together while the kernels' device
// time stays: each entry is judged beside the run's shift at its time scales, and the shift itself
// is one check, said once. Judged shape by shape against the report, every entry would differ.
TEST(RerunByModel, TheRunsHostShiftIsJudgedOnceNotInEveryEntry) {
  const json old = h200_run_with_device_times();
  const SpreadModel m = hand_model();
  json cmp = rerun_comparison(old, scaled(old, everything, 1.15, 1.0), RerunJudge{std::nullopt, &m});
  EXPECT_EQ(cmp["summary"]["reproduced"], 186) << rerun_summary_line(cmp);
  EXPECT_EQ(cmp["summary"]["within"], 186);
  EXPECT_EQ(cmp["summary"]["outside"], 1);  // the run-wide check
  EXPECT_FALSE(cmp["summary"]["run_differs"].get<bool>());
  EXPECT_TRUE(rerun_consistent(cmp)) << rerun_summary_line(cmp);
  const json& v = entry(cmp, "dot_product", "fp32", "vendor")["sweeps"][0];
  EXPECT_NEAR(v["time_ratio"].get<double>(), 1.15, 1e-9);
  EXPECT_NEAR(v["run_shift"].get<double>(), 1.15, 1e-9);
  EXPECT_NEAR(v["time_ratio_vs_run"].get<double>(), 1.0, 1e-9);
  ASSERT_TRUE(cmp["shift"]["bands"].is_array());
  EXPECT_NEAR(cmp["shift"]["bands"][0]["call_ratio"].get<double>(), 1.15, 1e-9);
  const std::string text = render_rerun_text(cmp);
  EXPECT_NE(text.find("by time scale (the median shape; each entry's call time is judged beside it): x1.150 < 100 us, x1.150 >= 100 us"),
            std::string::npos)
      << text.substr(0, 1500);
  EXPECT_NE(text.find("the whole run's call time is outside the model's run-wide bound +-"), std::string::npos);
  EXPECT_NE(text.find("this machine's host path differs from the report's; the kernels' time did not move"), std::string::npos);
  // The kernels 15% slower too: the run as a whole differs.
  cmp = rerun_comparison(old, scaled(old, everything, 1.15, 1.15), RerunJudge{std::nullopt, &m});
  EXPECT_TRUE(cmp["summary"]["run_differs"].get<bool>());
  EXPECT_FALSE(rerun_consistent(cmp));
  EXPECT_NE(rerun_summary_line(cmp).find("the whole run's call time differs"), std::string::npos) << rerun_summary_line(cmp);
  // A rerun of a few entries cannot measure a shift: judged against the report with the model's
  // common term, as before.
  json few_old = old, few_new = scaled(old, everything, 1.15, 1.0);
  for (json* r : {&few_old, &few_new}) {
    json keep = json::array();
    for (const json& x : (*r)["results"])
      if (x["task"] == "dot_product") keep.push_back(x);
    (*r)["results"] = keep;
  }
  cmp = rerun_comparison(few_old, few_new, RerunJudge{std::nullopt, &m});
  EXPECT_FALSE(entry(cmp, "dot_product", "fp32", "vendor")["sweeps"][0].contains("run_shift"));
  EXPECT_FALSE(cmp["shift"].contains("bands"));
  EXPECT_FALSE(rerun_consistent(cmp));
}

// An entry whose call time moved beyond chance while its device time stayed: the host side of its
// calls moved (host code in the entry point, the allocator, the driver), not its kernels; with the
// device time moved too, it differs.
TEST(RerunByModel, AHostOnlyMoveIsToldFromAKernelThatMoved) {
  const json old = h200_run_with_device_times();
  const SpreadModel m = hand_model();
  auto swiglu = [](const json& r) { return r["task"] == "SwiGLU" && r["precision"] == "fp32"; };  // a baseline without a contender's P
  json cmp = rerun_comparison(old, scaled(old, swiglu, 3.0, 1.0), RerunJudge{std::nullopt, &m});
  const json& e = entry(cmp, "SwiGLU", "fp32", "baseline");
  EXPECT_EQ(e["verdict"], "host_moved") << joined(e["reasons"]);
  EXPECT_FALSE(e["reproduced"].get<bool>());
  EXPECT_EQ(cmp["summary"]["host_moved"], 1);
  EXPECT_EQ(cmp["summary"]["differ"], 0);
  EXPECT_TRUE(rerun_consistent(cmp)) << rerun_summary_line(cmp);
  EXPECT_NE(rerun_summary_line(cmp).find("; 1 where only the host side moved (call time beyond chance, device time within its bound)"),
            std::string::npos)
      << rerun_summary_line(cmp);
  EXPECT_NE(render_rerun_text(cmp).find("host moved: SwiGLU fp32 baseline: paper: median time x3"), std::string::npos);
  cmp = rerun_comparison(old, scaled(old, swiglu, 3.0, 3.0), RerunJudge{std::nullopt, &m});
  EXPECT_EQ(entry(cmp, "SwiGLU", "fp32", "baseline")["verdict"], "differs");
  EXPECT_FALSE(rerun_consistent(cmp));
}

TEST(RerunByModel, DeviceTimeTellsWhetherTheHostOrTheKernelMoved) {
  const json old = h200_run_with_device_times();
  const SpreadModel m = hand_model();
  // The call 1.5x slower, the kernel's device time the same: the host side moved.
  json cmp = rerun_comparison(old, scaled(old, dot_vendor, 1.5, 1.0), RerunJudge{std::nullopt, &m});
  std::string why = joined(entry(cmp, "dot_product", "fp32", "vendor")["reasons"]);
  EXPECT_NE(why.find("device time x1 (within +-"), std::string::npos) << why;
  EXPECT_NE(why.find("the host side of the call moved"), std::string::npos) << why;
  // Both 1.5x: the kernel itself.
  cmp = rerun_comparison(old, scaled(old, dot_vendor, 1.5, 1.5), RerunJudge{std::nullopt, &m});
  why = joined(entry(cmp, "dot_product", "fp32", "vendor")["reasons"]);
  EXPECT_NE(why.find("device time x1.5 too"), std::string::npos) << why;
  EXPECT_NE(why.find("the kernel itself moved"), std::string::npos) << why;
  // Without device times in the rerun: no such line, the shapes instead.
  json bare = scaled(old, dot_vendor, 1.5);
  for (json& r : bare["results"]) r.erase("device_us");
  why = joined(entry(rerun_comparison(old, bare, RerunJudge{std::nullopt, &m}), "dot_product", "fp32", "vendor")["reasons"]);
  EXPECT_EQ(why.find("device time"), std::string::npos) << why;
  EXPECT_NE(why.find("moved most: "), std::string::npos) << why;
}

TEST(RerunByModel, ACorrectnessChangeIsNeverChance) {
  json old = h200_run();
  rescore(old);
  json fresh = old;
  for (json& c : fresh["contenders"])
    if (c["task"] == "dot_product" && c["precision"] == "fp32" && c["contender"] == "vendor") c["disposition"] = "wrong_result";
  const SpreadModel m = hand_model();
  const json cmp = rerun_comparison(old, fresh, RerunJudge{std::nullopt, &m});
  EXPECT_EQ(cmp["summary"]["hard"], 1);
  EXPECT_FALSE(rerun_consistent(cmp));
  EXPECT_NE(rerun_summary_line(cmp).find("1 with another correctness or disposition"), std::string::npos) << rerun_summary_line(cmp);
}

}  // namespace
}  // namespace mskb
