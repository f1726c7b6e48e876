// mskb report / compare: the numbers the pages are built from (mskb/report/numbers.hpp) on hand-made
// reports with answers worked out by hand, the escaping of every string from a report, the CSV and
// Markdown layouts, the SVG chart helper, and the overview of the committed H200 suite run.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "mskb/report/cells.hpp"
#include "mskb/report/csv.hpp"
#include "mskb/report/document.hpp"
#include "mskb/report/html.hpp"
#include "mskb/report/markdown.hpp"
#include "mskb/report/numbers.hpp"
#include "mskb/report/text.hpp"
#include "mskb/util/html.hpp"

using json = nlohmann::json;

namespace {

const char* kEvil = "<script>alert(1)</script> & \"q\" 'x'";

std::string cat_of(const std::string& task) { return task == "t3" ? "cat2" : "cat1"; }

json contender(const std::string& task, const std::string& who, const std::string& disposition, const std::string& message = "") {
  return {{"task", task},         {"precision", "fp32"}, {"contender", who},     {"kernel", "/k/" + who + ".cu"}, {"disposition", disposition},
          {"message", message},   {"checks_passed", 9},  {"checks_total", 9},    {"failure", nullptr},           {"gpu", "0"},
          {"expect", nullptr},    {"seconds", 1.0}};
}

json score(const std::string& task, const std::string& who, const std::string& sweep, double P) {
  return {{"task", task}, {"precision", "fp32"}, {"contender", who}, {"sweep", sweep}, {"P", P}, {"geomean", P}};
}

json result(const std::string& task, const std::string& who, const std::string& sweep, int n, double time, json speedup, json vendor,
            json sol, double roof = 1.0) {
  return {{"task", task},
          {"precision", "fp32"},
          {"contender", who},
          {"sweep", sweep},
          {"shape", {{"N", n}}},
          {"complexity", n},
          {"disposition", "passed"},
          {"time_us", {{"median", time}, {"min", time}, {"max", time}, {"n", 100}, {"noise", 0.001}, {"wall_median", time}}},
          {"sm_clock_mhz", 1900.0},
          {"roofline_us", roof},
          {"speedup_vs_baseline", speedup},
          {"ratio_vs_vendor", vendor},
          {"sol_fraction", sol},
          {"gpu_others", 0}};
}

// Three tasks (t1, t2 in cat1; t3 in cat2), each with a baseline; t1 and t2 with a vendor; a
// candidate "mine" in every task (wrong in t2, its message hostile HTML).
json small_report() {
  json r = {{"device", {{"name", "Test GPU"}, {"sms", 4}, {"dram_bandwidth_gbs", 1000.0}, {"fp32_tflops", 10.0}, {"bf16_tflops", 100.0}}},
            {"contenders", json::array()},
            {"results", json::array()},
            {"scores", json::array()}};
  for (const char* t : {"t1", "t2", "t3"}) r["contenders"].push_back(contender(t, "baseline", "passed"));
  r["contenders"].push_back(contender("t1", "vendor", "passed"));
  r["contenders"].push_back(contender("t2", "vendor", "noisy"));
  r["contenders"].push_back(contender("t1", "mine", "passed"));
  r["contenders"].push_back(contender("t2", "mine", "wrong_result", kEvil));
  r["contenders"].push_back(contender("t3", "mine", "passed"));
  for (const char* t : {"t1", "t2", "t3"}) r["scores"].push_back(score(t, "baseline", "paper", 1.0));
  r["scores"].push_back(score("t1", "vendor", "paper", 2.0));
  r["scores"].push_back(score("t2", "vendor", "paper", 0.5));
  r["scores"].push_back(score("t1", "mine", "paper", 3.0));
  r["scores"].push_back(score("t3", "mine", "paper", 1.2));
  r["scores"].push_back(score("t1", "vendor", "large", 4.0));
  // t1: N=100 then N=10 (out of order on purpose), and one large shape.
  r["results"].push_back(result("t1", "baseline", "paper", 100, 100.0, 1.0, 0.5, 0.01, 1.0));
  r["results"].push_back(result("t1", "baseline", "paper", 10, 10.0, 1.0, 0.5, 0.01, 0.1));
  r["results"].push_back(result("t1", "vendor", "paper", 100, 50.0, 2.0, 1.0, 0.02, 1.0));
  r["results"].push_back(result("t1", "vendor", "paper", 10, 5.0, 2.0, 1.0, 0.02, 0.1));
  r["results"].push_back(result("t1", "mine", "paper", 100, 12.5, 8.0, 8.0, 0.6, 1.0));
  r["results"].push_back(result("t1", "mine", "paper", 10, 2.5, 4.0, 2.0, 0.2, 0.1));
  r["results"].push_back(result("t1", "baseline", "large", 1000, 1000.0, 1.0, 0.25, 0.01, 10.0));
  r["results"].push_back(result("t1", "vendor", "large", 1000, 250.0, 4.0, 1.0, 0.04, 10.0));
  r["results"].push_back(result("t3", "mine", "paper", 10, 1.0, 1.2, nullptr, 0.1, 0.1));
  r["results"].push_back(result("t3", "baseline", "paper", 10, 1.2, 1.0, nullptr, 0.08, 0.1));
  return r;
}

const json& overview_row(const json& data, const json& sweep, const std::string& category, const std::string& kind) {
  for (const json& r : data["overview"])
    if (r["sweep"] == sweep && r["category"] == category && r["kind"] == kind) return r;
  static const json none;
  ADD_FAILURE() << "no overview row " << sweep << " " << category << " " << kind;
  return none;
}

const json& group(const json& data, const std::string& task) {
  for (const json& g : data["groups"])
    if (g["task"] == task) return g;
  static const json none;
  ADD_FAILURE() << "no group " << task;
  return none;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST(ReportData, SummaryAndSweeps) {
  const json d = mskb::run_report_data(small_report(), cat_of);
  const json& s = d["summary"];
  EXPECT_EQ(s["contenders"], 8);
  EXPECT_EQ(s["correct"], 7);
  EXPECT_EQ(s["groups"], 3);
  EXPECT_EQ(s["tasks"], 3);
  EXPECT_EQ(s["timed_shapes"], 10);
  EXPECT_EQ(s["sweeps"], json({"paper", "large"}));  // paper first though "large" sorts before it
  EXPECT_EQ(s["categories"], json({"cat1", "cat2"}));
  EXPECT_FALSE(s["partial"].get<bool>());
  EXPECT_TRUE(s["shape_seed"].is_null());
  EXPECT_EQ(d["device"]["name"], "Test GPU");
}

TEST(ReportData, OverviewByCategoryAndKind) {
  const json d = mskb::run_report_data(small_report(), cat_of);
  // cat1 vendors: t1 P 2.0 and t2 P 0.5 (noisy is correct).
  const json& v = overview_row(d, "paper", "cat1", "vendor");
  EXPECT_EQ(v["entries"], 2);
  EXPECT_EQ(v["correct"], 2);
  EXPECT_DOUBLE_EQ(v["share_correct"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(v["fast_1"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(v["fast_1_5"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(v["fast_2"].get<double>(), 0.0);  // P > p, strictly: 2.0 is not fast_2
  EXPECT_DOUBLE_EQ(v["mean_P"].get<double>(), 1.25);
  EXPECT_DOUBLE_EQ(v["geomean_P"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(v["vendor_ratio"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(v["median_sol"].get<double>(), 0.02);  // t1's median 0.02; t2 has no shapes
  // Every candidate: t1 (P 3, vendor ratios 2 and 8, SOL 0.2 and 0.6), t2 wrong, t3 (P 1.2, SOL 0.1).
  const json& c = overview_row(d, "paper", "all", "candidate");
  EXPECT_EQ(c["entries"], 3);
  EXPECT_EQ(c["correct"], 2);
  EXPECT_NEAR(c["share_correct"].get<double>(), 2.0 / 3, 1e-12);
  EXPECT_NEAR(c["fast_1"].get<double>(), 2.0 / 3, 1e-12);
  EXPECT_NEAR(c["fast_1_5"].get<double>(), 1.0 / 3, 1e-12);
  EXPECT_NEAR(c["fast_2"].get<double>(), 1.0 / 3, 1e-12);
  EXPECT_NEAR(c["mean_P"].get<double>(), 2.1, 1e-12);
  EXPECT_NEAR(c["geomean_P"].get<double>(), std::sqrt(3.6), 1e-12);
  EXPECT_NEAR(c["vendor_ratio"].get<double>(), 4.0, 1e-12);  // t1's geomean(2, 8); t3 has no vendor
  EXPECT_NEAR(c["median_sol"].get<double>(), 0.25, 1e-12);   // median(0.4, 0.1)
  const json& b = overview_row(d, "paper", "all", "baseline");
  EXPECT_EQ(b["entries"], 3);
  EXPECT_DOUBLE_EQ(b["fast_1"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(b["geomean_P"].get<double>(), 1.0);
  // The large sweep: only t1's vendor has a P there.
  const json& vl = overview_row(d, "large", "cat1", "vendor");
  EXPECT_DOUBLE_EQ(vl["fast_2"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(vl["mean_P"].get<double>(), 4.0);
  // Order: per sweep (paper first), categories by name then "all", kinds baseline, vendor, candidate.
  std::vector<std::string> order;
  for (const json& r : d["overview"])
    if (r["sweep"] == "paper") order.push_back(r["category"].get<std::string>() + "/" + r["kind"].get<std::string>());
  EXPECT_EQ(order, (std::vector<std::string>{"cat1/baseline", "cat1/vendor", "cat1/candidate", "cat2/baseline", "cat2/candidate",
                                             "all/baseline", "all/vendor", "all/candidate"}));
}

TEST(ReportData, EntriesCarryPerSweepNumbers) {
  const json d = mskb::run_report_data(small_report(), cat_of);
  ASSERT_EQ(d["entries"].size(), 8u);
  const json& first = d["entries"][0];
  EXPECT_EQ(first["task"], "t1");
  EXPECT_EQ(first["contender"], "baseline");
  const json* mine = nullptr;
  for (const json& e : d["entries"])
    if (e["task"] == "t1" && e["contender"] == "mine") mine = &e;
  ASSERT_NE(mine, nullptr);
  EXPECT_EQ((*mine)["kind"], "candidate");
  EXPECT_EQ((*mine)["category"], "cat1");
  const json& p = (*mine)["sweeps"]["paper"];
  EXPECT_DOUBLE_EQ(p["P"].get<double>(), 3.0);
  EXPECT_NEAR(p["vendor_ratio"].get<double>(), 4.0, 1e-12);
  EXPECT_NEAR(p["median_sol"].get<double>(), 0.4, 1e-12);
  EXPECT_NEAR(p["best_sol"].get<double>(), 0.6, 1e-12);
  EXPECT_EQ(p["shapes"], 2);
  EXPECT_FALSE((*mine)["sweeps"].contains("large"));
}

TEST(ReportData, PerTaskSeriesRooflineAndFailures) {
  const json d = mskb::run_report_data(small_report(), cat_of);
  const json& g = group(d, "t1");
  ASSERT_EQ(g["series"].size(), 3u);
  EXPECT_EQ(g["series"][0]["contender"], "baseline");
  EXPECT_EQ(g["series"][1]["contender"], "vendor");
  EXPECT_EQ(g["series"][2]["contender"], "mine");
  // Points sorted by complexity across sweeps: 10, 100 (paper), 1000 (large).
  const json& base = g["series"][0]["points"];
  ASSERT_EQ(base.size(), 3u);
  EXPECT_EQ(base[0]["complexity"], 10);
  EXPECT_EQ(base[0]["shape"], "N=10");
  EXPECT_DOUBLE_EQ(base[0]["time_us"].get<double>(), 10.0);
  EXPECT_EQ(base[2]["sweep"], "large");
  const json& mine = g["series"][2]["points"];
  ASSERT_EQ(mine.size(), 2u);
  EXPECT_DOUBLE_EQ(mine[1]["speedup"].get<double>(), 8.0);
  EXPECT_DOUBLE_EQ(mine[1]["vendor_ratio"].get<double>(), 8.0);
  EXPECT_DOUBLE_EQ(mine[0]["sol"].get<double>(), 0.2);
  // One roofline point per shape, whatever the number of contenders timed there.
  ASSERT_EQ(g["roofline"].size(), 3u);
  EXPECT_DOUBLE_EQ(g["roofline"][0]["us"].get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(g["roofline"][2]["us"].get<double>(), 10.0);
  EXPECT_TRUE(g["failures"].empty());
  const json& t2 = group(d, "t2");
  ASSERT_EQ(t2["failures"].size(), 1u);
  EXPECT_EQ(t2["failures"][0]["contender"], "mine");
  EXPECT_EQ(t2["failures"][0]["disposition"], "wrong_result");
  EXPECT_EQ(t2["failures"][0]["message"], kEvil);
  EXPECT_FALSE(t2["failures"][0]["as_expected"].get<bool>());
}

TEST(ReportData, ShapeLabelsFollowTheirOrder) {
  EXPECT_EQ(mskb::report::shape_label(json{{"M", 8}, {"N", 1024}, {"_order", {"N", "M"}}}), "N=1024,M=8");
  EXPECT_EQ(mskb::report::shape_label(json{{"M", 8}, {"N", 1024}}), "M=8,N=1024");
}

TEST(ReportData, RegistryCategoriesAndRejectedInput) {
  EXPECT_EQ(mskb::registry_category("vector_add"), "algebra");
  EXPECT_EQ(mskb::registry_category("spmv_csr"), "sparse");
  EXPECT_EQ(mskb::registry_category("no_such_task"), "other");
  EXPECT_THROW(mskb::run_report_data(json{{"tasks", 1}}), std::invalid_argument);
  EXPECT_THROW(mskb::run_report_data(json::array()), std::invalid_argument);
  EXPECT_THROW(mskb::compare_data({small_report()}, {"a"}), std::invalid_argument);
  EXPECT_THROW(mskb::compare_data({small_report(), small_report()}, {"a"}), std::invalid_argument);
}

TEST(ReportData, CheckOnlyReportHasNoTimedSweep) {
  json r = small_report();
  r["results"] = json::array();
  r["scores"] = json::array();
  const json d = mskb::run_report_data(r, cat_of);
  EXPECT_TRUE(d["summary"]["sweeps"].empty());
  const json& c = overview_row(d, nullptr, "all", "candidate");
  EXPECT_EQ(c["correct"], 2);
  EXPECT_TRUE(c["fast_1"].is_null());
  EXPECT_TRUE(c["mean_P"].is_null());
  const std::string html = mskb::render_run_html(d, "check.json");
  EXPECT_NE(html.find("No timed sweep"), std::string::npos);
}

namespace {

// Report B: mine twice as fast in t1 (P 6, baseline and vendor times halved), mine fixed in t2
// (P 1.5), t3's candidate renamed (a second submission), and a t4 only B has.
json second_report() {
  json r = small_report();
  for (json& c : r["contenders"]) {
    if (c["task"] == "t2" && c["contender"] == "mine") {
      c["disposition"] = "passed";
      c["message"] = "";
    }
    if (c["task"] == "t3" && c["contender"] == "mine") c["contender"] = "mine2";
  }
  r["contenders"].push_back(contender("t4", "baseline", "passed"));
  for (json& s : r["scores"]) {
    if (s["task"] == "t1" && s["contender"] == "mine") s["P"] = 6.0;
    if (s["task"] == "t3" && s["contender"] == "mine") s["contender"] = "mine2";
  }
  r["scores"].push_back(score("t2", "mine", "paper", 1.5));
  for (json& x : r["results"]) {
    if (x["task"] == "t1" && x["sweep"] == "paper") x["time_us"]["median"] = x["time_us"]["median"].get<double>() / 2;
    if (x["task"] == "t1" && x["contender"] == "mine") x["ratio_vs_vendor"] = x["ratio_vs_vendor"].get<double>() * 2;
    if (x["task"] == "t3" && x["contender"] == "mine") x["contender"] = "mine2";
  }
  return r;
}

const json& row(const json& pair, const std::string& task, const std::string& contender) {
  for (const json& r : pair["rows"])
    if (r["task"] == task && r["contender"] == contender) return r;
  static const json none;
  ADD_FAILURE() << "no row " << task << " " << contender;
  return none;
}

}  // namespace

TEST(CompareData, DeltasMatchingAndCorrectness) {
  const json d = mskb::compare_data({small_report(), second_report()}, {"A", "B"}, "paper", cat_of);
  EXPECT_EQ(d["labels"], json({"A", "B"}));
  ASSERT_EQ(d["pairs"].size(), 1u);
  const json& p = d["pairs"][0];
  EXPECT_EQ(p["rows"].size(), 8u);
  const json& m1 = row(p, "t1", "mine");
  EXPECT_DOUBLE_EQ(m1["dP"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(m1["P_ratio"].get<double>(), 2.0);
  EXPECT_NEAR(m1["d_vendor"].get<double>(), 4.0, 1e-12);     // geomean(4, 16) - geomean(2, 8)
  EXPECT_NEAR(m1["time_ratio"].get<double>(), 2.0, 1e-12);   // B twice as fast at both paper shapes
  EXPECT_EQ(m1["shapes"], 2);
  const json& b1 = row(p, "t1", "baseline");
  EXPECT_NEAR(b1["time_ratio"].get<double>(), 2.0, 1e-12);
  EXPECT_DOUBLE_EQ(b1["dP"].get<double>(), 0.0);
  // The renamed candidate pairs with the one candidate of its group.
  const json& m3 = row(p, "t3", "mine / mine2");
  EXPECT_DOUBLE_EQ(m3["a"]["P"].get<double>(), 1.2);
  EXPECT_DOUBLE_EQ(m3["b"]["P"].get<double>(), 1.2);
  EXPECT_NEAR(m3["time_ratio"].get<double>(), 1.0, 1e-12);
  // t2's candidate: wrong in A, right in B.
  ASSERT_EQ(p["correctness"].size(), 1u);
  EXPECT_EQ(p["correctness"][0]["task"], "t2");
  EXPECT_EQ(p["correctness"][0]["a"]["disposition"], "wrong_result");
  EXPECT_EQ(p["correctness"][0]["b"]["disposition"], "passed");
  EXPECT_TRUE(p["correctness"][0]["dP"].is_null());
  EXPECT_TRUE(p["only_a"].empty());
  ASSERT_EQ(p["only_b"].size(), 1u);
  EXPECT_EQ(p["only_b"][0]["task"], "t4");
}

TEST(CompareData, CategoryDeltas) {
  const json d = mskb::compare_data({small_report(), second_report()}, {"A", "B"}, "paper", cat_of);
  const json* cat1 = nullptr;
  const json* all_base = nullptr;
  for (const json& c : d["pairs"][0]["categories"]) {
    if (c["category"] == "cat1" && c["kind"] == "candidate") cat1 = &c;
    if (c["category"] == "all" && c["kind"] == "baseline") all_base = &c;
  }
  ASSERT_NE(cat1, nullptr);
  ASSERT_NE(all_base, nullptr);
  EXPECT_EQ((*cat1)["rows"], 2);
  EXPECT_EQ((*cat1)["both_P"], 1);  // t2's candidate has no P in A
  EXPECT_EQ((*cat1)["correct_a"], 1);
  EXPECT_EQ((*cat1)["correct_b"], 2);
  EXPECT_DOUBLE_EQ((*cat1)["mean_P_a"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ((*cat1)["mean_P_b"].get<double>(), 6.0);
  EXPECT_DOUBLE_EQ((*cat1)["dP"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ((*cat1)["geomean_P_ratio"].get<double>(), 2.0);
  // Baselines: t1 twice as fast in B, t3 the same: geomean(2, 1).
  EXPECT_NEAR((*all_base)["time_ratio"].get<double>(), std::sqrt(2.0), 1e-12);
}

TEST(ReportPages, EscapeEveryStringFromTheReport) {
  json r = small_report();
  r["device"]["name"] = "GPU <b>&";
  r["contenders"][5]["contender"] = "mine<img src=x onerror=alert(2)>";  // t1's candidate (a file stem)
  for (json& s : r["scores"])
    if (s["task"] == "t1" && s["contender"] == "mine") s["contender"] = "mine<img src=x onerror=alert(2)>";
  for (json& x : r["results"])
    if (x["task"] == "t1" && x["contender"] == "mine") x["contender"] = "mine<img src=x onerror=alert(2)>";
  const std::string html = mskb::render_run_html(mskb::run_report_data(r, cat_of), "run<&>.json");
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot; &#39;x&#39;"), std::string::npos);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("mine&lt;img src=x onerror=alert(2)&gt;"), std::string::npos);
  EXPECT_NE(html.find("GPU &lt;b&gt;&amp;"), std::string::npos);
  EXPECT_NE(html.find("run&lt;&amp;&gt;.json"), std::string::npos);
  EXPECT_EQ(count(html, "<script>"), 1u);  // the sort script, nothing else
  EXPECT_EQ(html.find("&lt;svg"), std::string::npos);
  EXPECT_EQ(html.find("&lt;td"), std::string::npos);

  json b = second_report();
  b["contenders"][6]["message"] = kEvil;
  const json cd = mskb::compare_data({r, b}, {"A<i>", "B&"}, "paper", cat_of);
  const std::string page = mskb::render_compare_html(cd, {"a<.json", "b.json"});
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<i>"), std::string::npos);
  EXPECT_NE(page.find("A&lt;i&gt;"), std::string::npos);
  EXPECT_NE(page.find("B&amp;"), std::string::npos);
  EXPECT_EQ(count(page, "<script>"), 1u);
  const std::string md = mskb::render_compare_markdown(mskb::compare_data({r, b}, {"A|x", "B"}, "paper", cat_of));
  EXPECT_NE(md.find("A\\|x"), std::string::npos);
}

TEST(ReportPages, RunPageHasItsParts) {
  const std::string html = mskb::render_run_html(mskb::run_report_data(small_report(), cat_of), "run.json");
  EXPECT_EQ(html.rfind("<!doctype html>", 0), 0u);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  // No external resource: the only URL is the SVG namespace, which is a name, never fetched.
  EXPECT_EQ(count(html, "http"), count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(count(html, "<svg"), 4u);  // t1 and t3: time and speedup; t2 has no timed shape
  EXPECT_NE(html.find("id=\"g-t1-fp32\""), std::string::npos);
  EXPECT_NE(html.find("roofline"), std::string::npos);
  EXPECT_NE(html.find("Failures (1)"), std::string::npos);
  EXPECT_NE(html.find("class=\"sortable\""), std::string::npos);
  EXPECT_NE(html.find("fast<sub>1.5</sub>"), std::string::npos);
}

TEST(ReportPages, CsvOneLinePerEntryQuoted) {
  const std::string csv = mskb::render_run_csv(mskb::run_report_data(small_report(), cat_of));
  std::istringstream in(csv);
  std::string header, line;
  std::getline(in, header);
  EXPECT_EQ(header,
            "task,precision,category,contender,kind,disposition,checks_passed,checks_total,P_paper,P_lo_paper,P_hi_paper,geomean_paper,"
            "vendor_ratio_paper,median_sol_paper,best_sol_paper,p_device_paper,p_device_lo_paper,p_device_hi_paper,P_large,P_lo_large,"
            "P_hi_large,geomean_large,vendor_ratio_large,median_sol_large,best_sol_large,p_device_large,p_device_lo_large,"
            "p_device_hi_large,message");
  int lines = 0;
  while (std::getline(in, line)) ++lines;
  EXPECT_EQ(lines, 8);
  // P 3 with its interval (the spread model's: any model gives lo < 3 < hi), then geomean 3, vendor 4, SOL, no P device
  // and no interval (the fixture has no device times), then the large sweep's ten empty cells and the empty message.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(csv, m, std::regex("t1,fp32,cat1,mine,candidate,passed,9,9,3,([0-9.]+),([0-9.]+),3,4,0.4,0.6,,,,,,,,,,,,,,\n"))) << csv;
  EXPECT_LT(std::stod(m[1]), 3.0);
  EXPECT_GT(std::stod(m[2]), 3.0);
  EXPECT_NE(csv.find(",\"<script>alert(1)</script> & \"\"q\"\" 'x'\"\n"), std::string::npos);
}

TEST(ReportPages, TextOverview) {
  const std::string text = mskb::render_run_text(mskb::run_report_data(small_report(), cat_of));
  EXPECT_NE(text.find("Test GPU: 8 contenders (7 correct) over 3 tasks, 10 timed shapes"), std::string::npos);
  EXPECT_NE(text.find("all"), std::string::npos);
}

// Issue 43's provenance: every rendering of a run (Markdown, HTML page, terminal table, `mskb report`'s
// text) names the commit its reproduce record holds, says when it is unknown or the tree was modified,
// and says when the report has no record at all.
TEST(ReportPages, EveryRenderingNamesTheCommit) {
  const auto renderings = [](const json& run) {
    return std::vector<std::string>{mskb::render_markdown(run), mskb::render_run_html(mskb::run_report_data(run, cat_of), "run.json"),
                                    mskb::render_table(run), mskb::render_run_text(mskb::run_report_data(run, cat_of))};
  };
  json run = small_report();
  run["reproduce"] = {{"tool", {{"name", "mskb"}, {"version", "9.8.7"}, {"commit", "0123456789ab (stamp)"}, {"cuda", "13.0"}}}};
  for (const std::string& r : renderings(run)) EXPECT_NE(r.find("Code: mskb 9.8.7 at commit 0123456789ab (stamp), CUDA 13.0."), std::string::npos) << r;
  run["reproduce"]["tool"]["commit"] = "0123456789ab+modified";
  for (const std::string& r : renderings(run)) {
    EXPECT_NE(r.find("at commit 0123456789ab+modified (the source tree differed from that commit)"), std::string::npos) << r;
  }
  run["reproduce"]["tool"]["commit"] = "unknown";
  for (const std::string& r : renderings(run)) {
    EXPECT_NE(r.find("at an unknown commit (built without git metadata or a source stamp"), std::string::npos) << r;
    EXPECT_EQ(r.find("at commit unknown"), std::string::npos) << r;
  }
  run.erase("reproduce");
  for (const std::string& r : renderings(run)) EXPECT_NE(r.find("Code: not recorded"), std::string::npos) << r;
}

// A merged report has no reproduce record of its own: it names the commits of the inputs whose groups
// it kept, with their number of groups when they differ, also when merged again.
TEST(ReportPages, AMergedReportNamesItsInputsCommits) {
  json a = small_report();
  a["reproduce"] = {{"tool", {{"name", "mskb"}, {"version", "1.0"}, {"commit", "aaaaaaaaaaaa"}, {"cuda", "13.0"}}}};
  json b = a;
  b["reproduce"]["tool"]["commit"] = "bbbbbbbbbbbb (stamp)";
  for (const char* k : {"contenders", "results", "scores"}) {
    json only_t2 = json::array();
    for (const json& e : b[k])
      if (e.value("task", "") == "t2") only_t2.push_back(e);
    b[k] = only_t2;
  }
  const json one = mskb::merge_reports({a}, {});
  EXPECT_NE(mskb::render_markdown(one).find("Code: mskb 1.0 at commit aaaaaaaaaaaa, CUDA 13.0 (merged by mskb merge)."), std::string::npos);
  const json two = mskb::merge_reports({a, b}, {});  // t2 from b, t1 and t3 from a
  const std::string want = "Code: merged from reports of different code: mskb 1.0 at commit aaaaaaaaaaaa, CUDA 13.0 (2 groups); "
                           "mskb 1.0 at commit bbbbbbbbbbbb (stamp), CUDA 13.0 (1 group).";
  EXPECT_NE(mskb::render_markdown(two).find(want), std::string::npos) << mskb::render_markdown(two);
  EXPECT_NE(mskb::render_run_html(mskb::run_report_data(two, cat_of), "m.json").find(want), std::string::npos);
  EXPECT_NE(mskb::render_markdown(mskb::merge_reports({two}, {})).find(want), std::string::npos);  // merged again
  // An input that made no group of the merge is not named.
  EXPECT_EQ(mskb::render_markdown(mskb::merge_reports({b, a}, {})).find("bbbbbbbbbbbb"), std::string::npos);
  // `mskb compare` names each report's code beside its device.
  const json cmp = mskb::compare_data({a, b}, {"A", "B"}, "paper", cat_of);
  const std::string md = mskb::render_compare_markdown(cmp), html = mskb::render_compare_html(cmp, {"a.json", "b.json"});
  EXPECT_NE(md.find("- A: Test GPU. Code: mskb 1.0 at commit aaaaaaaaaaaa, CUDA 13.0.\n- B: Test GPU. Code: mskb 1.0 at commit bbbbbbbbbbbb (stamp)"),
            std::string::npos) << md;
  EXPECT_NE(html.find("<td>Code: mskb 1.0 at commit bbbbbbbbbbbb (stamp), CUDA 13.0.</td>"), std::string::npos);
}

TEST(SvgChart, TicksLabelsAndEscaping) {
  EXPECT_EQ(mskb::log_ticks(1, 1000), (std::vector<double>{1, 10, 100, 1000}));
  EXPECT_EQ(mskb::log_ticks(1, 10), (std::vector<double>{1, 1.5, 2, 3, 5, 7, 10}));
  const std::vector<double> narrow = mskb::log_ticks(0.758, 1.01);  // too narrow for 1-2-5 steps: linear ones
  ASSERT_EQ(narrow.size(), 5u);
  EXPECT_NEAR(narrow.front(), 0.8, 1e-12);
  EXPECT_NEAR(narrow.back(), 1.0, 1e-12);
  EXPECT_EQ(mskb::linear_ticks(0, 10), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(mskb::si_number(1500), "1.5k");
  EXPECT_EQ(mskb::si_number(2e6), "2M");
  EXPECT_EQ(mskb::si_number(0.01), "0.01");
  EXPECT_EQ(mskb::si_number(100), "100");
  EXPECT_EQ(mskb::html_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");

  mskb::ChartOptions o;
  o.title = "t <1>";
  o.x_label = "x & y";
  o.y_rules = {1.0};
  mskb::ChartSeries s;
  s.name = "s<\"";
  s.points = {{1, 0.5, "tip <a>"}, {100, 2.0, ""}, {-1, 3.0, "left out on a log axis"}};
  const std::string svg = mskb::svg_chart(o, {s});
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("t &lt;1&gt;"), std::string::npos);
  EXPECT_NE(svg.find("x &amp; y"), std::string::npos);
  EXPECT_NE(svg.find("s&lt;&quot;"), std::string::npos);
  EXPECT_NE(svg.find("<title>tip &lt;a&gt;</title>"), std::string::npos);
  EXPECT_EQ(svg.find("left out"), std::string::npos);
  EXPECT_EQ(count(svg, "<circle"), 3u);  // two points and the legend's marker
  EXPECT_NE(svg.find("stroke=\"#c0392b\""), std::string::npos);  // the y = 1 rule
  EXPECT_EQ(svg.find("no data"), std::string::npos);
  EXPECT_NE(mskb::svg_chart(o, {}).find("no data"), std::string::npos);
}

#ifdef MSKB_TEST_SOURCE_DIR
// The committed H200 suite run (README: 186 contenders, 100 baselines and 86 vendors, all correct;
// matrix_mul's vendor P on the paper sweep 9.01 FP32).
TEST(ReportData, CommittedH200SuiteRun) {
  std::ifstream in(std::string(MSKB_TEST_SOURCE_DIR) + "/tests/fixtures/h200/run.json");
  ASSERT_TRUE(in.good());
  const json run = json::parse(in);
  const json d = mskb::run_report_data(run);
  EXPECT_EQ(d["summary"]["contenders"], 186);
  EXPECT_EQ(d["summary"]["correct"], 186);
  EXPECT_EQ(d["summary"]["tasks"], 50);
  EXPECT_EQ(d["summary"]["groups"], 100);
  EXPECT_EQ(d["summary"]["timed_shapes"], 2034);
  EXPECT_EQ(d["summary"]["sweeps"], json({"paper", "large"}));
  EXPECT_EQ(d["summary"]["categories"], json({"algebra", "llm", "scientific", "sparse"}));
  const json& v = overview_row(d, "paper", "all", "vendor");
  EXPECT_EQ(v["entries"], 86);
  EXPECT_DOUBLE_EQ(v["share_correct"].get<double>(), 1.0);
  EXPECT_EQ(overview_row(d, "paper", "all", "baseline")["entries"], 100);
  bool found = false;
  for (const json& e : d["entries"])
    if (e["task"] == "matrix_mul" && e["precision"] == "fp32" && e["contender"] == "vendor") {
      EXPECT_NEAR(e["sweeps"]["paper"]["P"].get<double>(), 9.0147, 1e-3);
      found = true;
    }
  EXPECT_TRUE(found);
  // Every group has a roofline and one series per contender.
  for (const json& g : d["groups"]) {
    EXPECT_FALSE(g["roofline"].empty()) << g["task"];
    for (const json& s : g["series"]) EXPECT_FALSE(s["points"].empty()) << g["task"] << " " << s["contender"];
  }
}
#endif
