// Device time beside call time (the reproducible-claims work, item 2): the union of a call's activity intervals, the
// verifier's summary and its refusals, the JSON of the timing event and of the run store, the
// MSKB_DEVICE_TIME switch in the request, P on device time, and every rendering with and without
// the fields (reports from before device time still load and render).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "mskb/core/registry.hpp"
#include "mskb/core/spread.hpp"
#include "mskb/harness/evaluator.hpp"
#include "mskb/harness/settings.hpp"
#include "mskb/protocol/device_time.hpp"
#include "mskb/protocol/events.hpp"
#include "mskb/report/csv.hpp"
#include "mskb/report/device_yardstick.hpp"
#include "mskb/report/document.hpp"
#include "mskb/report/html.hpp"
#include "mskb/report/markdown.hpp"
#include "mskb/report/numbers.hpp"
#include "mskb/report/text.hpp"
#include "mskb/report/yardsticks.hpp"

using json = nlohmann::json;
using mskb::DeviceInterval;

namespace {

std::string line_with(const std::string& text, const std::string& a, const std::string& b = "") {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.find(a) != std::string::npos && line.find(b) != std::string::npos) return line;
  return "";
}

// The fixture suite of the yardsticks test (vector_add: baseline 10/100 us, vendor 11/80, mine
// 9/70 at N=1024 / 1048576; spmv_coo: baseline 20/200, mine 15/100), as an old report: no device
// time anywhere.
json old_report() {
  std::ifstream f(std::string(MSKB_TEST_SOURCE_DIR) + "/tests/fixtures/yardsticks_suite.json");
  json j = json::parse(f);
  mskb::add_yardsticks(j);
  return j;
}

// The same with device times: vector_add's N=1024 shapes are mostly host time (device 2-4 us in
// 9-11 us calls); spmv_coo mine's large shape has none (a note says why).
json new_report() {
  json j = json::parse(std::ifstream(std::string(MSKB_TEST_SOURCE_DIR) + "/tests/fixtures/yardsticks_suite.json"));
  auto set = [&](const std::string& task, const std::string& who, int n, double dev) {
    for (json& r : j["results"])
      if (r["task"] == task && r["contender"] == who && r["shape"]["N"] == n) {
        const double t = r["time_us"]["median"];
        r["device_us"] = dev;
        r["host_share"] = 1 - dev / t;
        r["device_samples"] = 5;
      }
  };
  set("vector_add", "baseline", 1024, 4);
  set("vector_add", "baseline", 1048576, 90);
  set("vector_add", "vendor", 1024, 2);
  set("vector_add", "vendor", 1048576, 72);
  set("vector_add", "mine", 1024, 3);
  set("vector_add", "mine", 1048576, 60);
  set("spmv_coo", "baseline", 1024, 18);
  set("spmv_coo", "baseline", 1048576, 190);
  set("spmv_coo", "mine", 1024, 14);
  for (json& r : j["results"])
    if (r["task"] == "spmv_coo" && r["contender"] == "mine" && r["shape"]["N"] == 1048576) r["device_note"] = "refused: a test's reason";
  mskb::add_yardsticks(j);
  return j;
}

const json& score(const json& j, const std::string& task, const std::string& who) {
  for (const json& s : j["scores"])
    if (s["task"] == task && s["contender"] == who) return s;
  static const json none;
  return none;
}

std::string category_of(const std::string& task) { return task == "spmv_coo" ? "sparse" : "algebra"; }

}  // namespace

TEST(DeviceTime, BusyIsTheUnionOfTheIntervalsInTheWindow) {
  EXPECT_EQ(mskb::busy_ns({}, 0, 100), 0u);
  EXPECT_EQ(mskb::busy_ns({{10, 20}}, 0, 100), 10u);
  // Overlapping (two streams at once) counts once; nested adds nothing; touching merges.
  EXPECT_EQ(mskb::busy_ns({{10, 30}, {20, 40}}, 0, 100), 30u);
  EXPECT_EQ(mskb::busy_ns({{10, 50}, {20, 30}}, 0, 100), 40u);
  EXPECT_EQ(mskb::busy_ns({{10, 20}, {20, 30}}, 0, 100), 20u);
  // The gap between two kernels is not device time (the span would be 40).
  EXPECT_EQ(mskb::busy_ns({{40, 50}, {10, 20}}, 0, 100), 20u);
  // Clipped to the window: what the sample's preparation issued before it does not count.
  EXPECT_EQ(mskb::busy_ns({{0, 15}, {30, 200}}, 10, 100), 75u);
  EXPECT_EQ(mskb::busy_ns({{0, 5}}, 10, 100), 0u);
  // Inverted or empty intervals, and an empty window, count nothing.
  EXPECT_EQ(mskb::busy_ns({{30, 20}, {40, 40}}, 0, 100), 0u);
  EXPECT_EQ(mskb::busy_ns({{10, 20}}, 50, 50), 0u);
  EXPECT_EQ(mskb::busy_ns({{10, 20}}, 60, 50), 0u);
}

TEST(DeviceTime, HostShareAndTheVerifiersSummary) {
  EXPECT_DOUBLE_EQ(mskb::host_share(4, 10), 0.6);
  EXPECT_DOUBLE_EQ(mskb::host_share(12, 10), 0.0);
  EXPECT_DOUBLE_EQ(mskb::host_share(1, 0), 1.0);
  std::string why;
  const auto d = mskb::summarize_device_samples({4, 5, 3, 6, 4}, {10, 10, 12, 10, 8}, &why);
  ASSERT_TRUE(d) << why;
  EXPECT_DOUBLE_EQ(d->device_us, 4);
  EXPECT_DOUBLE_EQ(d->call_us, 10);
  EXPECT_DOUBLE_EQ(d->host_share, 0.5);  // shares 0.6 0.5 0.75 0.4 0.5: median 0.5
  EXPECT_EQ(d->samples, 5);
  // Within the slack above the call: clamped to it (host share 0).
  const auto c = mskb::summarize_device_samples({10.4}, {10}, &why);
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->device_us, 10);
  EXPECT_DOUBLE_EQ(c->host_share, 0);
  // Refused, each with its reason.
  EXPECT_FALSE(mskb::summarize_device_samples({}, {}, &why));
  EXPECT_EQ(why, "no device samples");
  EXPECT_FALSE(mskb::summarize_device_samples({1, 2}, {3}, &why));
  EXPECT_EQ(why, "2 device times for 1 calls");
  EXPECT_FALSE(mskb::summarize_device_samples({std::nan("")}, {3}, &why));
  EXPECT_NE(why.find("not a time"), std::string::npos);
  EXPECT_FALSE(mskb::summarize_device_samples({-1}, {3}, &why));
  EXPECT_FALSE(mskb::summarize_device_samples({1}, {0}, &why));
  EXPECT_FALSE(mskb::summarize_device_samples({20}, {10}, &why));  // 10 * 1.05 + 2 = 12.5 < 20
  EXPECT_EQ(why, "device sample 0: 20.00 us of device time in a call of 10.00 us");
}

TEST(DeviceTime, TimingJsonRoundTripAndOldReports) {
  mskb::TimingStats t;
  t.median_us = 50;
  t.device = mskb::DeviceTime{12.5, 48, 0.74, 5};
  json j = t;
  EXPECT_EQ(j["device_us"], 12.5);
  EXPECT_EQ(j["host_share"], 0.74);
  EXPECT_EQ(j["device_samples"], 5);
  EXPECT_FALSE(j.contains("device_note"));
  const auto back = j.get<mskb::TimingStats>();
  ASSERT_TRUE(back.device);
  EXPECT_EQ(back.device->device_us, 12.5);
  EXPECT_EQ(back.device->call_us, 48);
  EXPECT_EQ(back.device->samples, 5);
  mskb::TimingStats off;
  off.device_note = "off (MSKB_DEVICE_TIME=off)";
  const auto off_back = json(off).get<mskb::TimingStats>();
  EXPECT_FALSE(off_back.device);
  EXPECT_EQ(off_back.device_note, "off (MSKB_DEVICE_TIME=off)");
  // A timing from before device time: neither.
  const auto old = json{{"median", 3.0}, {"n", 10}}.get<mskb::TimingStats>();
  EXPECT_FALSE(old.device);
  EXPECT_TRUE(old.device_note.empty());
  // The run store's results (result_to_json) carry it through a process boundary.
  mskb::ContenderResult r;
  r.task = "vector_add";
  r.precision = "fp32";
  r.contender = "baseline";
  r.disposition = mskb::Disposition::passed;
  mskb::ShapeTiming st;
  st.shape = {{"N", 1024}};
  st.time = t;
  r.timings = {st};
  const mskb::ContenderResult r2 = mskb::result_from_json(mskb::result_to_json(r));
  ASSERT_EQ(r2.timings.size(), 1u);
  ASSERT_TRUE(r2.timings[0].time.device);
  EXPECT_EQ(r2.timings[0].time.device->host_share, 0.74);
}

TEST(DeviceTime, RequestCarriesTheCountAndTheSwitchTurnsItOff) {
  mskb::TimingConfig c;
  EXPECT_EQ(c.device_samples, 5);
  c.device_samples = 3;
  EXPECT_EQ(json(c).get<mskb::TimingConfig>().device_samples, 3);
  const json without = {{"warmup_calls", 3}};  // a request from before device time
  EXPECT_EQ(without.get<mskb::TimingConfig>().device_samples, 5);
  ::setenv("MSKB_DEVICE_TIME", "off", 1);
  const mskb::Settings off = mskb::Settings::from_environment();
  ::setenv("MSKB_DEVICE_TIME", "1", 1);
  EXPECT_EQ(mskb::Settings::from_environment().device_time, true);
  ::setenv("MSKB_DEVICE_TIME", "maybe", 1);
  try {
    mskb::Settings::from_environment();
    ADD_FAILURE() << "MSKB_DEVICE_TIME=maybe was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "MSKB_DEVICE_TIME must be on or off");
  }
  ::unsetenv("MSKB_DEVICE_TIME");
  EXPECT_FALSE(mskb::Settings::from_environment().device_time);
  ASSERT_EQ(off.device_time, false);
  mskb::EvalOptions opt;
  const mskb::TaskSpec& spec = mskb::get_task("vector_add");
  EXPECT_EQ(mskb::evaluation_request(spec, mskb::Precision::fp32, "k.so", opt).timing.device_samples, 5);
  opt.settings = off;
  EXPECT_EQ(mskb::evaluation_request(spec, mskb::Precision::fp32, "k.so", opt).timing.device_samples, 0);
}

TEST(DeviceTime, ReportJsonPutsItOnEachResult) {
  mskb::SuiteReport rep;
  rep.device = {{"name", "Fake H200"}, {"sms", 132}};
  mskb::ContenderRun base, mine;
  for (auto* r : {&base, &mine}) {
    r->result.task = "vector_add";
    r->result.precision = "fp32";
    r->result.disposition = mskb::Disposition::passed;
  }
  base.result.contender = "baseline";
  mine.result.contender = "mine";
  mskb::ShapeTiming a, b;
  a.shape = {{"N", 1024}};
  b.shape = {{"N", 4096}};
  a.complexity = 1024;
  b.complexity = 4096;
  a.time.median_us = 20;
  b.time.median_us = 40;
  a.time.device = mskb::DeviceTime{5, 20, 0.75, 5};
  b.time.device = mskb::DeviceTime{30, 40, 0.25, 5};
  base.result.timings = {a, b};
  a.time.median_us = 10;  // mine: twice as fast on call time at N=1024, on device time 5 / 2.5
  a.time.device = mskb::DeviceTime{2.5, 10, 0.75, 5};
  b.time.device.reset();
  b.time.device_note = "not available: cannot load libcupti.so.13";
  mine.result.timings = {a, b};
  rep.runs = {base, mine};
  const json j = mskb::report_json(rep);
  ASSERT_EQ(j["results"].size(), 4u);
  EXPECT_EQ(j["results"][0]["device_us"], 5.0);
  EXPECT_EQ(j["results"][0]["host_share"], 0.75);
  EXPECT_EQ(j["results"][0]["device_samples"], 5);
  EXPECT_FALSE(j["results"][3].contains("device_us"));
  EXPECT_EQ(j["results"][3]["device_note"], "not available: cannot load libcupti.so.13");
  // Mine has no device time at N=4096, which P used: no P on device time.
  EXPECT_TRUE(score(j, "vector_add", "mine")["p_device"].is_null());
  EXPECT_EQ(score(j, "vector_add", "baseline")["p_device"], 1.0);
  EXPECT_NE(mskb::render_table(j).find("no device time at 1 shape(s): not available: cannot load libcupti.so.13"), std::string::npos);
}

TEST(DeviceTime, PDeviceIsPOnDeviceTimes) {
  const json j = new_report();
  // vector_add mine: device speedups 4/3 at c=1024 and 90/60 at c=1048576, weighted like P.
  const double want = (1024 * (4.0 / 3) + 1048576 * 1.5) / (1024 + 1048576);
  EXPECT_NEAR(score(j, "vector_add", "mine")["p_device"].get<double>(), want, 1e-12);
  EXPECT_NEAR(score(j, "vector_add", "vendor")["p_device"].get<double>(), (1024 * 2.0 + 1048576 * 1.25) / (1024 + 1048576), 1e-12);
  EXPECT_EQ(score(j, "vector_add", "baseline")["p_device"], 1.0);
  // spmv_coo mine lacks its large shape's device time: none, rather than a P over fewer shapes.
  EXPECT_TRUE(score(j, "spmv_coo", "mine")["p_device"].is_null());
  EXPECT_TRUE(score(j, "spmv_coo", "mine")["p_device_interval"].is_null());
  EXPECT_TRUE(score(j, "vector_add", "baseline")["p_device_interval"].is_null());  // 1 by definition
  // Its interval: the between-lease one over the same shapes with the device-time bounds, which
  // the model measured tighter than the call-time ones (the same times judged as call times).
  const std::vector<mskb::ShapeSpeedup> shapes = {{1024, {4, 0}, {3, 0}}, {1048576, {90, 0}, {60, 0}}};
  const auto dev = mskb::p_interval(shapes, mskb::spread_model(), mskb::SpreadScope::between_lease, mskb::TimeKind::device);
  const auto call = mskb::p_interval(shapes, mskb::spread_model(), mskb::SpreadScope::between_lease, mskb::TimeKind::call);
  ASSERT_TRUE(dev && call);
  const json iv = score(j, "vector_add", "mine")["p_device_interval"];
  ASSERT_TRUE(iv.is_array()) << iv;
  EXPECT_NEAR(iv[0].get<double>(), dev->lo, 1e-12);
  EXPECT_NEAR(iv[1].get<double>(), dev->hi, 1e-12);
  EXPECT_LT(iv[0].get<double>(), want);
  EXPECT_GT(iv[1].get<double>(), want);
  if (!mskb::spread_model().lease.device.empty()) {
    EXPECT_LT(dev->half_log, call->half_log);
  }
  // Where device time equals call time everywhere, P device is P.
  json same = old_report();
  for (json& r : same["results"]) r["device_us"] = r["time_us"]["median"];
  mskb::add_yardsticks(same);
  for (const json& s : same["scores"]) EXPECT_NEAR(s["p_device"].get<double>(), s["P"].get<double>(), 1e-9) << s.dump();
  // An old report: every p_device null, nothing else changed.
  for (const json& s : old_report()["scores"]) EXPECT_TRUE(s["p_device"].is_null());
}

TEST(DeviceTime, SummaryNamesHostBoundShapesAndWhyOthersHaveNone) {
  const json sum = mskb::device_time_summary(new_report());
  EXPECT_EQ(sum["shapes"], 10);
  EXPECT_EQ(sum["measured"], 9);
  ASSERT_EQ(sum["host_bound"].size(), 3u);  // vector_add at N=1024: 6/10, 9/11, 6/9
  EXPECT_EQ(sum["host_bound"][0]["contender"], "vendor");  // 1 - 2/11, the largest
  ASSERT_EQ(sum["notes"].size(), 1u);
  EXPECT_EQ(sum["notes"][0]["note"], "refused: a test's reason");
  const auto lines = mskb::device_time_lines(sum, 2);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[0].find("9 of 10 timed shapes; 3 host-bound"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("host-bound: vector_add fp32 vendor paper N=1024 (host 82%, device 2.00 of 11.0 us)"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("; and 1 more"), std::string::npos) << lines[1];
  EXPECT_EQ(lines[2], "no device time at 1 shape(s): refused: a test's reason");
  // Nothing measured: one line, with the reason.
  json off = old_report();
  for (json& r : off["results"]) r["device_note"] = "off (MSKB_DEVICE_TIME=off)";
  EXPECT_EQ(mskb::device_time_lines(mskb::device_time_summary(off)),
            std::vector<std::string>{"device time: not available (off (MSKB_DEVICE_TIME=off))"});
  EXPECT_TRUE(mskb::device_time_lines(mskb::device_time_summary(json::object())).empty());
}

TEST(DeviceTime, CellsAndHostBoundMark) {
  EXPECT_EQ(mskb::device_cell(json{{"device_us", 12.34}, {"host_share", 0.45}}), "12.3 us, host 45%");
  EXPECT_EQ(mskb::device_cell(json{{"device_us", 2.0}, {"host_share", 0.8}}), "2.00 us, host 80% host-bound");
  EXPECT_EQ(mskb::device_cell(json{{"device_us", 2.0}, {"host_share", 0.8}}, true), "2.00/80%H");
  EXPECT_EQ(mskb::device_cell(json{{"time_us", {{"median", 3.0}}}}), "-");
  EXPECT_TRUE(mskb::is_host_bound(json{{"host_share", 0.51}}));
  EXPECT_FALSE(mskb::is_host_bound(json{{"host_share", 0.5}}));
  EXPECT_FALSE(mskb::is_host_bound(json::object()));
}

TEST(DeviceTime, EveryRenderingWithTheFields) {
  const json j = new_report();
  const std::string table = mskb::render_table(j);
  EXPECT_NE(table.find("P device"), std::string::npos) << table;
  EXPECT_NE(line_with(table, "vector_add", " mine ").find(" 1.50 "), std::string::npos) << table;  // P device 1.4998
  EXPECT_NE(table.find("host-bound: vector_add fp32 vendor paper N=1024"), std::string::npos) << table;
  const std::string md = mskb::render_markdown(j);
  EXPECT_NE(md.find("## Device time"), std::string::npos);
  EXPECT_NE(md.find("| task | prec | contender | sweep | P | P device |"), std::string::npos) << md;
  const json iv = score(j, "vector_add", "mine")["p_device_interval"];
  char cell[96];
  std::snprintf(cell, sizeof cell, "| vector_add | fp32 | mine | paper | 1.43 | 1.50 [%.2f, %.2f] |", iv[0].get<double>(), iv[1].get<double>());
  EXPECT_NE(md.find(cell), std::string::npos) << cell << "\n" << md;
  EXPECT_NE(md.find("| vector_add | fp32 | baseline | paper | 1.00 | 1.00 |"), std::string::npos) << md;
  EXPECT_NE(line_with(md, "| vector_add | fp32 | vendor | paper | N=1024 |").find("| 2.00 us, host 82% host-bound |"), std::string::npos) << md;
  EXPECT_NE(line_with(md, "| spmv_coo | fp32 | mine | paper | N=1048576 |").find("| - |"), std::string::npos) << md;
  const std::string csv = mskb::render_results_csv(j);
  EXPECT_NE(line_with(csv, "vector_add,fp32,mine,paper,N=1048576,").find(",60.0,0.14285714285714"), std::string::npos) << csv;
  EXPECT_NE(line_with(csv, "vector_add,fp32,mine,paper,N=1048576,").find(",5,false,\r"), std::string::npos) << csv;
  EXPECT_NE(line_with(csv, "vector_add,fp32,mine,paper,N=1024,").find(",true,\r"), std::string::npos) << csv;
  EXPECT_NE(line_with(csv, "spmv_coo,fp32,mine,paper,N=1048576,").find(",,,,false,refused: a test's reason"), std::string::npos) << csv;
  const json data = mskb::run_report_data(j, category_of);
  EXPECT_EQ(data["summary"]["device_time"]["measured"], 9);
  bool found = false;
  for (const json& e : data["entries"])
    if (e["task"] == "vector_add" && e["contender"] == "mine") {
      EXPECT_NEAR(e["sweeps"]["paper"]["p_device"].get<double>(), 1.4998, 1e-4);
      found = true;
    }
  EXPECT_TRUE(found);
  const std::string run_csv = mskb::render_run_csv(data);
  EXPECT_NE(run_csv.find("p_device_paper,p_device_lo_paper,p_device_hi_paper"), std::string::npos) << run_csv;
  // mine's P device 1.4998 and its interval: the row's three cells in a row, lo < P device < hi.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(run_csv, m, std::regex("\n(vector_add),fp32,[^,]*,mine,[^\n]*,(1\\.4998[0-9]*),([0-9.]+),([0-9.]+)"))) << run_csv;
  EXPECT_LT(std::stod(m[3]), 1.4998);
  EXPECT_GT(std::stod(m[4]), 1.4998);
  const std::string text = mskb::render_run_text(data);
  EXPECT_NE(text.find("9 of 10 timed shapes; 3 host-bound"), std::string::npos) << text;
  const std::string html = mskb::render_run_html(data, "run.json");
  EXPECT_NE(html.find("P device paper"), std::string::npos);
  EXPECT_NE(html.find("<h3 id=\"device\">Device time</h3>"), std::string::npos);
  EXPECT_NE(html.find("82% host-bound"), std::string::npos);
}

TEST(DeviceTime, OldReportsLoadAndRenderWithoutIt) {
  const json j = old_report();
  const std::string table = mskb::render_table(j);
  EXPECT_NE(table.find("device time: not available (a report from before device time was measured)"), std::string::npos) << table;
  EXPECT_EQ(table.find("host-bound"), std::string::npos);
  const std::string md = mskb::render_markdown(j);
  EXPECT_NE(line_with(md, "| vector_add | fp32 | mine | paper | N=1024 |").find("| L | - |"), std::string::npos) << md;
  EXPECT_NE(md.find("| vector_add | fp32 | mine | paper | 1.43 | - |"), std::string::npos) << md;
  const std::string csv = mskb::render_results_csv(j);
  EXPECT_NE(line_with(csv, "vector_add,fp32,mine,paper,N=1024,").find(",,,,false,\r"), std::string::npos) << csv;
  const json data = mskb::run_report_data(j, category_of);
  EXPECT_EQ(data["summary"]["device_time"]["measured"], 0);
  const std::string html = mskb::render_run_html(data, "old.json");
  EXPECT_NE(html.find("device time: not available"), std::string::npos);
  // A merge of an old and a new report computes P device over the merged groups.
  const json merged = mskb::merge_reports({old_report(), new_report()});
  EXPECT_FALSE(score(merged, "vector_add", "mine")["p_device"].is_null());
}
