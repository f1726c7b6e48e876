// The three yardsticks in every rendering (issue 39 item 4): a fixture suite report
// (tests/fixtures/yardsticks_suite.json: vector_add with a vendor route that pays an ABI cost,
// spmv_coo with none; a launch floor of 8 us; two shapes per contender) rendered as the console
// table, Markdown, CSV, JSON and the `mskb report` pages; the columns and marks checked by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "mskb/report/csv.hpp"
#include "mskb/report/document.hpp"
#include "mskb/report/html.hpp"
#include "mskb/report/markdown.hpp"
#include "mskb/report/numbers.hpp"
#include "mskb/report/text.hpp"
#include "mskb/report/yardsticks.hpp"

using json = nlohmann::json;

namespace {

json fixture() {
  std::ifstream f(std::string(MSKB_TEST_SOURCE_DIR) + "/tests/fixtures/yardsticks_suite.json");
  json j = json::parse(f);
  mskb::add_yardsticks(j);
  return j;
}

std::string category_of(const std::string& task) { return task == "spmv_coo" ? "sparse" : "algebra"; }

// The line of `text` that holds all of `parts`.
std::string line_with(const std::string& text, const std::string& a, const std::string& b) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.find(a) != std::string::npos && line.find(b) != std::string::npos) return line;
  return "";
}

}  // namespace

TEST(Yardsticks, LaunchFloorAndLaunchBound) {
  EXPECT_EQ(mskb::launch_floor_us(json{{"launch_floor_us", 8.0}}), 8.0);
  EXPECT_FALSE(mskb::launch_floor_us(json{{"name", "old cache"}}));
  EXPECT_TRUE(mskb::is_launch_bound(json(12.0), 8.0));   // 1.5 x 8
  EXPECT_FALSE(mskb::is_launch_bound(json(12.1), 8.0));
  EXPECT_FALSE(mskb::is_launch_bound(json(1.0), std::nullopt));
  EXPECT_NE(mskb::launch_floor_line(json::object()).find("not measured"), std::string::npos);
}

TEST(Yardsticks, VendorCell) {
  const json with_cost = {{"route", "cuBLAS"}, {"none_reason", ""}, {"abi_cost", "a copy"}};
  const json none = {{"route", ""}, {"none_reason", "no library takes it"}, {"abi_cost", ""}};
  const json plain = {{"route", "cuBLAS"}, {"none_reason", ""}, {"abi_cost", ""}};
  EXPECT_EQ(mskb::vendor_cell(plain, json(1.234)), "1.23");
  EXPECT_EQ(mskb::vendor_cell(with_cost, json(1.234)), "1.23*");
  EXPECT_EQ(mskb::vendor_cell(plain, json()), "no vendor");
  EXPECT_EQ(mskb::vendor_cell(none, json()), "none: no library takes it");
  EXPECT_EQ(mskb::vendor_cell(none, json(), false), "none");
}

TEST(Yardsticks, JsonCarriesThemPerRowAndShape) {
  const json j = fixture();
  for (const json& r : j["results"]) {
    const double t = r["time_us"]["median"];
    EXPECT_EQ(r["launch_bound"].get<bool>(), t <= 12.0) << r.dump();
  }
  int checked = 0;
  for (const json& s : j["scores"]) {
    if (s["task"] == "vector_add" && s["contender"] == "mine") {
      EXPECT_NEAR(s["vs_vendor"].get<double>(), std::sqrt(11.0 / 9 * 80.0 / 70), 1e-9);
      EXPECT_EQ(s["vendor"], "1.18*");
      ASSERT_EQ(s["sol_by_shape"].size(), 2u);
      EXPECT_TRUE(s["sol_by_shape"][0]["launch_bound"].get<bool>());
      EXPECT_NEAR(s["sol_by_shape"][1]["sol"].get<double>(), 60.0 / 70, 1e-9);
      ++checked;
    }
    if (s["task"] == "spmv_coo" && s["contender"] == "mine") {
      EXPECT_TRUE(s["vs_vendor"].is_null());
      EXPECT_EQ(s["vendor"], "none: unsorted, accumulating COO input: no library takes it");
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2);
}

TEST(Yardsticks, RooflineSummaryPerCategory) {
  const json s = mskb::roofline_summary(fixture(), category_of);
  ASSERT_EQ(s["categories"].size(), 3u);  // algebra, sparse, all
  const json& all = s["categories"][2];
  EXPECT_EQ(all["category"], "all");
  EXPECT_EQ(all["tasks"], 2);
  EXPECT_EQ(all["within"], 1);  // vector_add mine: 86% at N=1048576; spmv_coo at most 50%
  EXPECT_EQ(all["furthest"][0]["task"], "spmv_coo");
  EXPECT_EQ(all["furthest"][0]["contender"], "mine");
  EXPECT_NEAR(all["furthest"][0]["sol"].get<double>(), 0.5, 1e-12);
  const auto lines = mskb::roofline_summary_lines(s);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1], "sparse: 0 of 1 task within 80% of the roofline at their largest shape; furthest: spmv_coo fp32 mine 50% at N=1048576");
}

TEST(Yardsticks, ConsoleTable) {
  const std::string t = mskb::render_table(fixture());
  EXPECT_NE(t.find("SOL by shape (paper)"), std::string::npos) << t;
  const std::string mine = line_with(t, "vector_add", " mine ");
  EXPECT_NE(mine.find("1.18*"), std::string::npos) << mine;
  EXPECT_NE(mine.find("22%L 86%"), std::string::npos) << mine;
  const std::string coo = line_with(t, "spmv_coo", " mine ");
  EXPECT_NE(coo.find(" none "), std::string::npos) << coo;
  EXPECT_NE(coo.find("33% 50%"), std::string::npos) << coo;
  EXPECT_NE(t.find("Launch floor: 8.00 us"), std::string::npos);
  EXPECT_NE(t.find("vendor: spmv_coo: no vendor contender, none: unsorted, accumulating COO input"), std::string::npos) << t;
  EXPECT_NE(t.find("vendor: vector_add: * the vendor route (cuBLAS cublasSaxpy) pays a cost the ABI forces: a copy of x"), std::string::npos);
  EXPECT_NE(t.find("roofline: all: 1 of 2 tasks within 80% of the roofline at their largest shape"), std::string::npos) << t;
}

TEST(Yardsticks, Markdown) {
  const std::string md = mskb::render_markdown(fixture());
  EXPECT_NE(md.find("Launch floor: 8.00 us"), std::string::npos);
  EXPECT_NE(md.find("| SOL by shape paper |"), std::string::npos) << md;
  EXPECT_NE(line_with(md, "| spmv_coo | fp32 | mine |", "| none |").find("| 33% 50% |"), std::string::npos) << md;
  EXPECT_NE(md.find("| SM MHz | launch-bound |"), std::string::npos);
  EXPECT_NE(line_with(md, "| vector_add | fp32 | mine | paper | N=1024 |", "|").find("| 1980 | L |"), std::string::npos) << md;
  EXPECT_NE(line_with(md, "| vector_add | fp32 | mine | paper | N=1048576 |", "|").find("| 1980 |  |"), std::string::npos) << md;
  EXPECT_NE(md.find("## Distance to the roofline"), std::string::npos);
  EXPECT_NE(md.find("- spmv_coo: no vendor contender, none: unsorted"), std::string::npos);
}

TEST(Yardsticks, Csv) {
  const std::string csv = mskb::render_results_csv(fixture());
  EXPECT_EQ(csv.substr(0, csv.find("\r\n")),
            "task,precision,contender,sweep,shape,complexity,disposition,median_us,min_us,max_us,n,noise,speedup_vs_baseline,"
            "ratio_vs_vendor,sol_fraction,launch_bound,vendor,device_us,host_share,device_samples,host_bound,device_note");
  EXPECT_NE(line_with(csv, "spmv_coo,fp32,mine,paper,N=1024,", ",").find(",false,\"none: unsorted, accumulating COO input: no library takes it\""),
            std::string::npos)
      << csv;  // 15 us: above 1.5 x 8 us
  EXPECT_NE(line_with(csv, "vector_add,fp32,mine,paper,N=1024,", ",").find(",true,ABI cost: a copy of x into y first"), std::string::npos) << csv;
  EXPECT_NE(line_with(csv, "vector_add,fp32,mine,paper,N=1048576,", ",").find(",false,ABI cost:"), std::string::npos) << csv;
}

TEST(Yardsticks, ReportPages) {
  const json data = mskb::run_report_data(fixture(), category_of);
  EXPECT_EQ(data["summary"]["launch_floor_us"], 8.0);
  EXPECT_EQ(data["summary"]["roofline"]["categories"].size(), 3u);
  const std::string html = mskb::render_run_html(data, "fixture.json");
  EXPECT_NE(html.find("Launch floor: 8.00 us"), std::string::npos);
  EXPECT_NE(html.find("Distance to the roofline"), std::string::npos);
  EXPECT_NE(html.find("none: unsorted, accumulating COO input: no library takes it"), std::string::npos);
  EXPECT_NE(html.find("22%L 86%"), std::string::npos);
  EXPECT_NE(html.find("<th>launch-bound</th>"), std::string::npos);
  const std::string text = mskb::render_run_text(data);
  EXPECT_NE(text.find("roofline: sparse: 0 of 1 task within 80%"), std::string::npos) << text;
  EXPECT_NE(text.find("Launch floor: 8.00 us"), std::string::npos);
}

TEST(Yardsticks, MergeKeepsTheVendorRoutes) {
  const json merged = mskb::merge_reports({fixture()});
  EXPECT_EQ(merged["vendors"]["spmv_coo"]["route"], "");
  EXPECT_EQ(merged["roofline_summary"]["categories"].back()["within"], 1);
}
