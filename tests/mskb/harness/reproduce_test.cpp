// The reproduce record and the rerun comparison (mskb/harness/reproduce.hpp), without a GPU: a
// plan's record describes the same plan again (round trip), the observed part drops the UUID and
// summarizes the SM clocks, and the comparison of hand-made reports with known ratios flags
// exactly the entries outside the tolerance.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "mskb/core/random_shapes.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/harness/reproduce.hpp"
#include "mskb/report/html.hpp"
#include "mskb/report/markdown.hpp"
#include "mskb/report/rerun.hpp"
#include "mskb/report/text.hpp"
#include "mskb/util/files.hpp"
#include "mskb/util/sha256.hpp"

using json = nlohmann::json;

namespace mskb {
namespace {

SuitePlan sample_plan() {
  SuitePlan plan;
  plan.tasks = {"vector_add", "softmax"};
  plan.contenders = {ContenderKind::baseline, ContenderKind::vendor};
  plan.shape_seed = 7;
  plan.eval.timed_sweeps = {Sweep::paper, Sweep::large};
  plan.eval.seeds = 4;
  plan.eval.timing.max_time_s = 0.5;
  plan.eval.call_timeout_s = 12.5;
  plan.compile.flags = {"-use_fast_math"};
  plan.compile.allow_libraries = true;
  plan.checks_per_gpu = 3;
  plan.sanitize_gate = true;
  return plan;
}

// `--shape`: the ad-hoc shapes are recorded as the user wrote them (in the task's order) and come
// back as the same shapes, with no random shapes (they replace the sweeps).
TEST(Reproduce, AdHocShapesAreRecordedAndComeBack) {
  SuitePlan plan = sample_plan();
  plan.tasks = {"matrix_mul"};
  plan.eval.timed_sweeps = {Sweep::custom};
  plan.eval.custom_shapes = {custom_shape(get_task("matrix_mul"), "M=512,N=256,K=128"), custom_shape(get_task("matrix_mul"), "M=3,N=5,K=7")};
  const json record = reproduce_record(plan, 7);
  EXPECT_EQ(record["settings"]["custom_shapes"], json({"M=512,N=256,K=128", "M=3,N=5,K=7"}));
  EXPECT_EQ(record["settings"]["sweeps"]["timed"], json({"custom"}));
  EXPECT_EQ(record["settings"]["random_shape_count"], 0);
  const SuitePlan again = plan_from_record(record);
  EXPECT_EQ(again.eval.custom_shapes, plan.eval.custom_shapes);
  EXPECT_EQ(again.eval.timed_sweeps, std::vector<Sweep>{Sweep::custom});
  // A record whose shape the task no longer takes is refused, naming it.
  json bad = record;
  bad["settings"]["custom_shapes"] = json({"M=512,N=256"});
  try {
    (void)plan_from_record(bad);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("missing dimension K"), std::string::npos) << e.what();
  }
  // A record of an older mskb (no custom_shapes) reads as none.
  json old = record;
  old["settings"].erase("custom_shapes");
  EXPECT_TRUE(plan_from_record(old).eval.custom_shapes.empty());
}

TEST(Reproduce, ARecordDescribesItsPlanAgain) {
  const SuitePlan plan = sample_plan();
  // The settings that live in the environment are recorded when set (and only then).
  ::setenv("MSKB_PIPELINE", "1", 1);
  ::setenv("MSKB_DEVICE_INPUTS", "0", 1);
  ::setenv("CUDA_VISIBLE_DEVICES", "1,0", 1);
  ::setenv("MSKB_SHARE_INSTANCES", "0", 1);
  ::unsetenv("MSKB_GPU_COMPARE_MIN_COMPLEXITY");
  const json record = reproduce_record(plan, 7);
  for (const char* name : {"MSKB_PIPELINE", "MSKB_DEVICE_INPUTS", "CUDA_VISIBLE_DEVICES", "MSKB_SHARE_INSTANCES"}) ::unsetenv(name);
  EXPECT_EQ(record["environment"]["MSKB_SHARE_INSTANCES"], "0");
  EXPECT_EQ(record["environment"]["MSKB_PIPELINE"], "1");
  EXPECT_EQ(record["environment"]["MSKB_DEVICE_INPUTS"], "0");
  EXPECT_EQ(record["environment"]["CUDA_VISIBLE_DEVICES"], "1,0");
  EXPECT_FALSE(record["environment"].contains("MSKB_GPU_COMPARE_MIN_COMPLEXITY"));
  const json& s = record["settings"];
  EXPECT_EQ(record["command"], "run");
  EXPECT_TRUE(record["argv"].is_null()) << "a plan no command line made";
  EXPECT_EQ(s["sweeps"]["timed"], json({"paper", "large"}));
  json drawn = json::array();
  for (const Shape& shape : random_shapes(get_task("softmax"), 7, 2)) drawn.push_back(shape.str());
  EXPECT_EQ(s["random_shapes"]["softmax"], drawn);
  // Baseline and vendor of both tasks in both precisions, each file hashed.
  ASSERT_EQ(s["files"].size(), 8u) << s["files"].dump(1);
  for (const json& f : s["files"]) {
    std::ifstream in(f["path"].get<std::string>(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(f["sha256"], sha256_hex(text)) << f.dump();
    EXPECT_EQ(f["shipped"], true);
  }

  const SuitePlan again = plan_from_record(record);
  EXPECT_EQ(again.tasks, plan.tasks);
  EXPECT_EQ(again.eval.seeds, 4);
  EXPECT_EQ(again.eval.call_timeout_s, std::optional<double>(12.5));
  EXPECT_EQ(again.compile.flags, plan.compile.flags);
  EXPECT_TRUE(again.sanitize_gate);
  EXPECT_EQ(again.only_groups, (std::vector<std::string>{"vector_add|fp32", "vector_add|bf16", "softmax|fp32", "softmax|bf16"}));
  EXPECT_EQ(reproduce_record(again, 7)["settings"], s) << "the plan of a record records the same settings";
  EXPECT_TRUE(changed_files(record, again).empty());

  // A record of a run that left groups out (--skip-done) runs only the groups it has.
  json part = record;
  json kept = json::array();
  for (const json& f : part["settings"]["files"])
    if (f["task"] == "softmax" && f["precision"] == "bf16") kept.push_back(f);
  part["settings"]["files"] = kept;
  EXPECT_EQ(suite_groups(plan_from_record(part)).size(), 1u);

  // A changed shipped file, and one the run no longer has.
  json changed = record;
  changed["settings"]["files"][0]["sha256"] = std::string(64, '0');
  changed["settings"]["files"][1]["contender"] = "vendor_old";
  const auto changes = changed_files(changed, again);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_NE(changes[0].line().find("changed since the report (sha256 000000000000.. -> "), std::string::npos) << changes[0].line();
  EXPECT_FALSE(changes[0].missing);
  EXPECT_NE(changes[1].line().find("vendor_old): no longer part of the run in this build"), std::string::npos) << changes[1].line();

  // The local headers each file reaches are recorded by their place in the tree and hashed: both
  // vendor files include kernels/include/mskb_vendor.cuh. A header changed since the report is named
  // once, however many kernels include it; the baselines include none.
  int with_header = 0;
  for (const json& f : s["files"]) {
    if (f["contender"] != "vendor") {
      EXPECT_FALSE(f.contains("includes")) << f.dump();
      continue;
    }
    ASSERT_EQ(f["includes"].size(), 1u) << f.dump();
    EXPECT_EQ(f["includes"][0]["path"], "kernels/include/mskb_vendor.cuh");
    std::ifstream in(source_root() + "/kernels/include/mskb_vendor.cuh", std::ios::binary);
    EXPECT_EQ(f["includes"][0]["sha256"], sha256_hex(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>())));
    ++with_header;
  }
  EXPECT_EQ(with_header, 4);
  json header_changed = record;
  for (json& f : header_changed["settings"]["files"])
    if (f.contains("includes")) f["includes"][0]["sha256"] = std::string(64, 'f');
  const auto header_changes = changed_files(header_changed, again);
  ASSERT_EQ(header_changes.size(), 1u);
  EXPECT_NE(header_changes[0].line().find("kernels/include/mskb_vendor.cuh (header of vector_add fp32 vendor): changed since the report "
                                          "(sha256 ffffffffffff.. -> "),
            std::string::npos)
      << header_changes[0].line();
  // A record of an mskb that did not record headers: nothing to compare them with.
  json no_headers = record;
  for (json& f : no_headers["settings"]["files"]) f.erase("includes");
  EXPECT_TRUE(changed_files(no_headers, again).empty());

  json bad = record;
  bad["settings"].erase("tasks");
  EXPECT_THROW(plan_from_record(bad), std::invalid_argument);
  bad = record;
  bad["settings"]["tasks"] = {"no_such_task"};
  EXPECT_THROW(plan_from_record(bad), std::invalid_argument);
}

TEST(Reproduce, ObservedPartDropsTheUuidAndSummarizesClocks) {
  const json report = {{"device", {{"name", "X"}, {"uuid", "GPU-1"}, {"lanes", {"GPU-1"}}, {"sms", 2}, {"cached", true}}},
                       {"contenders", json::array()},
                       {"results", {{{"sm_clock_mhz", 1900.0}}, {{"sm_clock_mhz", 1700.0}}, {{"sm_clock_mhz", 0.0}}, {{"sm_clock_mhz", 1980.0}},
                                    {{"sm_clock_mhz", 1800.0}}}}};
  const json r = reproduce_observed(json::object(), report);
  EXPECT_EQ(r["device"], json({{"name", "X"}, {"sms", 2}}));
  EXPECT_EQ(r["sm_clock_mhz"], json({{"min", 1700.0}, {"median", 1850.0}, {"max", 1980.0}, {"shapes", 4}}));
  EXPECT_TRUE(reproduce_observed(json::object(), json::object())["sm_clock_mhz"].is_null());

  EXPECT_NE(reproduce_unavailable(json::array()).find("not an mskb run/check JSON report"), std::string::npos);
  EXPECT_NE(reproduce_unavailable(report).find("no \"reproduce\" record"), std::string::npos);
  EXPECT_NE(reproduce_unavailable({{"contenders", json::array()}, {"reproduce", {{"format", 1}}}}).find("malformed"), std::string::npos);
  EXPECT_EQ(reproduce_unavailable({{"contenders", json::array()}, {"reproduce", {{"format", 1}, {"settings", json::object()}}}}), "");
}

// A report of vector_add fp32: baseline (10 and 40 us) and kernel k (5 and 20 us, P 2), times
// scaled per contender and shape.
json hand_report(double k_small, double k_large, double base = 1.0, const std::string& k_disposition = "passed", const std::string& gpu = "G") {
  auto result = [](const std::string& who, int n, double us) {
    return json{{"task", "vector_add"}, {"precision", "fp32"}, {"contender", who}, {"sweep", "paper"},
                {"shape", {{"N", n}}},   {"time_us", {{"median", us}}}, {"sm_clock_mhz", 1980.0}};
  };
  json results = {result("baseline", 1024, 10 * base), result("baseline", 4096, 40 * base)};
  if (k_disposition == "passed") {
    results.push_back(result("k", 1024, 5 * k_small));
    results.push_back(result("k", 4096, 20 * k_large));
  }
  const double P = (10 * base / (5 * k_small) * 1 + 40 * base / (20 * k_large) * 4) / 5;  // weights 1 and 4
  json scores = {{{"task", "vector_add"}, {"precision", "fp32"}, {"contender", "baseline"}, {"sweep", "paper"}, {"P", 1.0}}};
  if (k_disposition == "passed") scores.push_back({{"task", "vector_add"}, {"precision", "fp32"}, {"contender", "k"}, {"sweep", "paper"}, {"P", P}});
  return {{"device", {{"name", gpu}}},
          {"contenders",
           {{{"task", "vector_add"}, {"precision", "fp32"}, {"contender", "baseline"}, {"disposition", "passed"}, {"checks_passed", 9}, {"checks_total", 9}},
            {{"task", "vector_add"}, {"precision", "fp32"}, {"contender", "k"}, {"disposition", k_disposition}, {"checks_passed", 9},
             {"checks_total", 9}}}},
          {"results", results},
          {"scores", scores}};
}

const json& entry(const json& cmp, const std::string& who) {
  for (const json& e : cmp["entries"])
    if (e["contender"] == who) return e;
  throw std::runtime_error("no entry " + who);
}

TEST(Reproduce, ComparisonFlagsEntriesOutsideTheTolerance) {
  const json old = hand_report(1, 1);
  // Everything 1.1x slower: time ratio 1.1 (at the tolerance: reproduced), P unchanged.
  json cmp = rerun_comparison(old, hand_report(1.1, 1.1, 1.1), 0.1);
  EXPECT_EQ(cmp["summary"], json({{"entries", 2}, {"reproduced", 2}, {"differ", 0}})) << cmp.dump(1);
  EXPECT_NEAR(entry(cmp, "k")["sweeps"][0]["time_ratio"].get<double>(), 1.1, 1e-12);
  EXPECT_NEAR(entry(cmp, "k")["sweeps"][0]["P_ratio"].get<double>(), 1.0, 1e-12);
  EXPECT_EQ(entry(cmp, "k")["sweeps"][0]["shapes"], 2);
  EXPECT_EQ(cmp["same_gpu_model"], true);
  // k 1.2x slower on the small shape only: geomean sqrt(1.2) = 1.095, P 2 -> (1/1.2 * 2 + 2 * 4) / 5 = 1.933;
  // within 10%, not within 5%; the furthest shape is named.
  cmp = rerun_comparison(old, hand_report(1.2, 1), 0.1);
  const json& k = entry(cmp, "k");
  EXPECT_TRUE(k["reproduced"].get<bool>()) << k.dump(1);
  EXPECT_NEAR(k["sweeps"][0]["time_ratio"].get<double>(), std::sqrt(1.2), 1e-12);
  EXPECT_EQ(k["sweeps"][0]["worst_shape"]["shape"], "N=1024");
  EXPECT_NEAR(k["sweeps"][0]["worst_shape"]["ratio"].get<double>(), 1.2, 1e-12);
  cmp = rerun_comparison(old, hand_report(1.2, 1), 0.05);
  EXPECT_FALSE(entry(cmp, "k")["reproduced"].get<bool>());
  EXPECT_TRUE(entry(cmp, "baseline")["reproduced"].get<bool>());
  EXPECT_EQ(cmp["summary"], json({{"entries", 2}, {"reproduced", 1}, {"differ", 1}}));
  ASSERT_EQ(entry(cmp, "k")["reasons"].size(), 1u) << "P moved 3.3%: only the time";
  EXPECT_NE(entry(cmp, "k")["reasons"][0].get<std::string>().find("paper: median time x1.1 the report's (geometric mean over 2 shapes; furthest N=1024: x1.2)"),
            std::string::npos)
      << entry(cmp, "k")["reasons"];
  const std::string text = render_rerun_text(cmp);
  EXPECT_NE(text.find("differs: vector_add fp32 k: paper: median time x1.1"), std::string::npos) << text;
  EXPECT_NE(text.find("reproduced 1 of 2 entries within 5% (correctness, median times and P); 1 differ"), std::string::npos) << text;

  // The kernel failed in the rerun on another GPU: correctness differs, the model is warned about.
  cmp = rerun_comparison(old, hand_report(1, 1, 1, "wrong_result", "H"), 0.1);
  EXPECT_EQ(cmp["same_gpu_model"], false);
  EXPECT_NE(cmp["notes"][0].get<std::string>().find("WARNING: different GPU model: the report ran on G, this rerun on H"), std::string::npos);
  EXPECT_NE(entry(cmp, "k")["reasons"][0].get<std::string>().find("correct in the report (passed), not in the rerun (wrong_result)"),
            std::string::npos)
      << entry(cmp, "k")["reasons"];

  // An entry the rerun does not have.
  json fewer = hand_report(1, 1);
  fewer["contenders"].erase(1);
  cmp = rerun_comparison(old, fewer, 0.1);
  EXPECT_EQ(cmp["summary"], json({{"entries", 2}, {"reproduced", 1}, {"differ", 1}}));
  EXPECT_EQ(cmp["only_old"].size(), 1u);
  EXPECT_NE(render_rerun_text(cmp).find("differs: vector_add fp32 k: in the report, not in the rerun"), std::string::npos);

  // Check reports (nothing timed): correctness alone.
  json c_old = hand_report(1, 1), c_new = hand_report(1, 1, 1, "wrong_result");
  for (json* r : {&c_old, &c_new}) {
    (*r)["results"] = json::array();
    (*r)["scores"] = json::array();
  }
  cmp = rerun_comparison(c_old, c_old, 0.1);
  EXPECT_EQ(cmp["check_only"], true);
  EXPECT_EQ(cmp["summary"]["reproduced"], 2);
  EXPECT_EQ(entry(cmp, "k")["sweeps"], json::array());
  cmp = rerun_comparison(c_old, c_new, 0.1);
  EXPECT_EQ(cmp["summary"]["differ"], 1);
  EXPECT_NE(render_rerun_text(cmp).find("(correctness); 1 differ"), std::string::npos) << render_rerun_text(cmp);

  EXPECT_THROW(rerun_comparison(json::object(), old, 0.1), std::invalid_argument);

  // The renderings: Markdown (with mskb compare's tables one level down) and HTML (escaped).
  const std::string md = render_rerun_markdown(rerun_comparison(old, hand_report(2, 2), 0.1), "# mskb compare: a vs b\n");
  EXPECT_NE(md.find("## mskb compare: a vs b"), std::string::npos) << md;
  EXPECT_NE(md.find("## Differences"), std::string::npos) << md;
  const std::string html = render_rerun_html(rerun_comparison(old, hand_report(2, 2), 0.1), "<html><h1>t</h1>\n<p>rest</p>");
  EXPECT_EQ(html.find("<html><h1>t</h1>\n<h2>Reproduction</h2>"), 0u) << html;
  EXPECT_NE(html.find("<p>rest</p>"), std::string::npos);
}

}  // namespace
}  // namespace mskb
