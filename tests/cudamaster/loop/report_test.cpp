// The data behind `cudamaster report` and `cudamaster compare` (report_document, compare_document)
// on a store built here (report_fixture.hpp) and on copies of the committed H200 demo stores, and
// the pages rendered from them: every candidate's status and per-size timings, plans in full,
// filtered profile metrics, agent usage with failed calls, the ablation table's numbers and the
// flags that differ, and untrusted text escaped.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "cudamaster/loop/compare_report.hpp"
#include "cudamaster/loop/html_report.hpp"
#include "cudamaster/loop/summary.hpp"
#include "report_fixture.hpp"
#include "support/llm_doubles.hpp"

namespace {

using nlohmann::json;
namespace fixture = cmtest::report_fixture;
namespace loop = cudamaster::loop;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

struct FixtureStore {
  cmtest::TempDir dir;
  std::unique_ptr<cudamaster::store::RunStore> store = cudamaster::store::RunStore::open(dir.file("runs.db"));
  FixtureStore() { fixture::build_store(*store); }
};

TEST(ReportDocument, EveryCandidateWithItsStatusAndPerSizeTimings) {
  FixtureStore f;
  const json doc = loop::report_document(*f.store, 1);
  ASSERT_EQ(doc["jobs"].size(), 1u);
  const json& job = doc["jobs"][0];
  EXPECT_EQ(job["vendor_p"], 1.25);
  const json& c = job["candidates"];
  ASSERT_EQ(c.size(), 6u);
  std::vector<std::string> statuses, reasons;
  for (const json& x : c) {
    statuses.push_back(x["status"]);
    reasons.push_back(x["reason"]);
  }
  EXPECT_EQ(statuses, (std::vector<std::string>{"baseline", "vendor", "failed", "failed", "rejected", "accepted"}));
  EXPECT_EQ(reasons, (std::vector<std::string>{"", "", "build: compile error: <identifier> undefined",
                                               "candidate: wrong_result - 12 of 1024 elements outside tolerance", "", ""}));
  EXPECT_EQ(c[0]["p_remeasured"], 1.0);
  EXPECT_EQ(c[4]["p"], 0.5);
  EXPECT_TRUE(c[4]["p_remeasured"].is_null());
  const json& best = c[5];
  EXPECT_EQ(best["origin"], "coder");
  EXPECT_EQ(best["round"], 2);
  EXPECT_EQ(best["p"], 1.5);
  EXPECT_EQ(best["p_remeasured"], 1.6);
  EXPECT_EQ(best["vs_vendor"], 1.2);
  EXPECT_EQ(best["evaluation"], "candidate");
  const json want_shapes = json::parse(R"([
    {"sweep": "paper", "shape": "rows=1024", "complexity": 1024, "median_us": 5.0, "noise": 0.01, "speedup": 2.0, "vs_vendor": 4.0,
     "sol_fraction": 0.05, "disposition": "passed"},
    {"sweep": "paper", "shape": "rows=4096", "complexity": 4096, "median_us": 30.0, "noise": 0.01, "speedup": 1.3333333333333333,
     "vs_vendor": 2.0, "sol_fraction": 0.25, "disposition": "passed"}])");
  EXPECT_EQ(best["shapes"], want_shapes) << best["shapes"].dump(1);
  EXPECT_TRUE(c[2]["shapes"].empty()) << "a build failure has no timings";
}

TEST(ReportDocument, PlansInFullProfilesWithMetricsAndAgentsWithFailedCalls) {
  FixtureStore f;
  const json job = loop::report_document(*f.store, 1)["jobs"][0];
  ASSERT_EQ(job["rounds"].size(), 2u);
  const json& plan = job["rounds"][0]["plan_detail"];
  EXPECT_EQ(plan["bottleneck"], "serial rows");
  EXPECT_EQ(plan["strategies"], json::parse(R"([{"name": "warp per row", "change": "spread each row over a warp", "expected_gain": "about 2x"}])"));
  EXPECT_EQ(plan["expected_speedup"], 2.0);
  EXPECT_EQ(plan["risks"], fixture::kHostile);
  EXPECT_EQ(plan["rationale"], "parallel rows hide the load latency");
  EXPECT_TRUE(plan["structured"].get<bool>());
  EXPECT_EQ(job["rounds"][1]["plan_detail"]["strategies"][0]["name"], "four lanes per row");

  ASSERT_EQ(job["profiles"].size(), 1u);
  const json& p = job["profiles"][0];
  EXPECT_EQ(p["class"], "memory-latency");
  EXPECT_EQ(p["reason"], "warps wait on <memory>");
  EXPECT_EQ(p["kernel"], "spmv<float>(int, const float*)");
  EXPECT_EQ(p["all_metrics"], 3);
  EXPECT_EQ(p["metrics"], json::parse(R"([
    {"metric": "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "label": "DRAM throughput", "shown": "20.5 %"},
    {"metric": "launch__registers_per_thread", "label": "registers per thread", "shown": "32 register/thread"}])"));

  const json want_agents = json::parse(R"([
    {"agent": "coder", "calls": 2, "failed": 0, "input_tokens": 4100, "output_tokens": 1700, "cost_usd": 0.041, "latency_ms": 3000.0},
    {"agent": "debug", "calls": 2, "failed": 1, "input_tokens": 1500, "output_tokens": 700, "cost_usd": 0.015, "latency_ms": 3000.0},
    {"agent": "planner", "calls": 2, "failed": 0, "input_tokens": 2200, "output_tokens": 450, "cost_usd": 0.022, "latency_ms": 3000.0}])");
  ASSERT_EQ(job["agents"].size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    json a = job["agents"][i], w = want_agents[i];
    EXPECT_NEAR(a["cost_usd"].get<double>(), w["cost_usd"].get<double>(), 1e-12);
    a.erase("cost_usd");
    w.erase("cost_usd");
    EXPECT_EQ(a, w);
  }
  ASSERT_EQ(job["failed_calls"].size(), 1u);
  EXPECT_EQ(job["failed_calls"][0]["agent"], "debug");
  EXPECT_EQ(job["failed_calls"][0]["error"], "HTTP 500: <html>upstream</html>");

  // A failed run keeps its agent table and its failed call.
  const json failed = loop::report_document(*f.store, 2)["jobs"][0];
  EXPECT_EQ(failed["status"], "failed");
  ASSERT_EQ(failed["agents"].size(), 1u);
  EXPECT_EQ(failed["agents"][0]["failed"], 1);
  EXPECT_EQ(failed["failed_calls"][0]["error"], "budget exhausted");
  ASSERT_EQ(failed["candidates"].size(), 1u);
  EXPECT_EQ(failed["candidates"][0]["status"], "baseline");
  EXPECT_TRUE(failed["candidates"][0]["shapes"][0]["vs_vendor"].is_null()) << "no vendor in that run";
  EXPECT_TRUE(failed["rounds"].empty());
  EXPECT_THROW(loop::report_document(*f.store, 9), cudamaster::store::StoreError);
}

TEST(ReportHtml, EscapesPlansErrorsAndNamesAndDrawsTheRoundChart) {
  FixtureStore f;
  const std::string html = loop::render_html(loop::report_document(*f.store, 1));
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<b>bold"), std::string::npos);
  EXPECT_EQ(html.find("<html>upstream"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;console.error(&quot;INJECTED_PLAN&quot;)&lt;/script&gt; &amp; &quot;quoted&quot; &lt;b&gt;bold&lt;/b&gt;"),
            std::string::npos);
  EXPECT_NE(html.find("build: compile error: &lt;identifier&gt; undefined"), std::string::npos);
  EXPECT_NE(html.find("HTTP 500: &lt;html&gt;upstream&lt;/html&gt;"), std::string::npos);
  EXPECT_NE(html.find("Test &lt;GPU&gt; &amp; co"), std::string::npos);
  EXPECT_NE(html.find("spmv&lt;float&gt;(int, const float*)"), std::string::npos);
  // The chart: one per job, every kind of candidate, baseline and vendor lines.
  EXPECT_EQ(count(html, "<svg"), 1u);
  EXPECT_EQ(html.find("http"), std::string::npos) << "self-contained: no URL at all";
  EXPECT_NE(html.find("aria-label=\"P per round: spmv_csr fp32\""), std::string::npos);
  for (const char* legend : {">accepted<", ">rejected<", ">failed (drawn at P = 0)<", ">baseline (P = 1)<", ">vendor (P = 1.25)<", ">best P so far<"})
    EXPECT_NE(html.find(legend), std::string::npos) << legend;
  EXPECT_NE(html.find("candidate 6 (round 2, coder): accepted, P 1.600"), std::string::npos);
  EXPECT_NE(html.find("candidate 3 (round 1, coder): failed - build: compile error: &lt;identifier&gt; undefined"), std::string::npos);
  // The per-size table of the accepted candidate: us, speedup, vs vendor, % of roofline.
  EXPECT_NE(html.find("<td>rows=4096</td><td>4096</td><td>30.000</td><td>1.0%</td><td class=\"win\">1.33</td><td class=\"win\">2.00</td>"
                      "<td>25.0%</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<th>expected gain</th>"), std::string::npos);
  EXPECT_NE(html.find("<b>Expected speedup:</b> 2.00x"), std::string::npos);
  EXPECT_NE(html.find("<td>DRAM throughput</td><td>20.5 %</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>debug</td><td>2</td><td>1</td><td>1500</td>"), std::string::npos) << "agents with failed calls";

  const std::string failed = loop::render_html(loop::report_document(*f.store, 2));
  EXPECT_NE(failed.find("openai:&lt;b&gt;model&lt;/b&gt;"), std::string::npos);
  EXPECT_EQ(failed.find("<b>model"), std::string::npos);
  EXPECT_NE(failed.find("<h3>Agents</h3>\n<table><tr><th>agent</th>"), std::string::npos);
  EXPECT_NE(failed.find("<li>round 1 coder: budget exhausted</li>"), std::string::npos);
}

TEST(CompareDocument, AblationNumbersAndTheFlagsThatDiffer) {
  FixtureStore f;
  const json doc = loop::compare_document(*f.store, {1, 2});
  EXPECT_EQ(doc["differing"], json::parse(R"(["llm", "rounds", "profile", "planner"])"));
  EXPECT_EQ(doc["common"]["debug_loops"], "2");
  EXPECT_EQ(doc["common"]["device"], "Test <GPU> & co");
  EXPECT_EQ(doc["agents"], json::parse(R"(["coder", "debug", "planner"])"));
  const json& a = doc["runs"][0];
  const json& b = doc["runs"][1];
  EXPECT_EQ(a["label"], "run 1: llm=replay:demo.jsonl, rounds=2, profile=filtered, planner=on");
  EXPECT_EQ(b["label"], "run 2: llm=openai:<b>model</b>, rounds=3, profile=none, planner=off");
  EXPECT_EQ(a["suite"]["success_rate"], 1.0);
  EXPECT_EQ(a["suite"]["fast_1"], 1.0);
  EXPECT_EQ(a["suite"]["fast_1_5"], 1.0);
  EXPECT_EQ(a["suite"]["fast_2"], 0.0);
  EXPECT_EQ(a["suite"]["mean_p"], 1.6);
  EXPECT_NEAR(a["suite"]["geomean_vs_vendor"].get<double>(), 1.3, 1e-12);
  EXPECT_EQ(b["suite"]["success_rate"], 0.0);
  EXPECT_TRUE(b["suite"]["mean_p"].is_null());
  EXPECT_NEAR(a["cost_usd"].get<double>(), 0.078, 1e-12);
  EXPECT_EQ(a["tokens"], json::parse(R"({"input": 7800, "output": 2850})"));
  EXPECT_EQ(a["wall_seconds"], 120.0);
  EXPECT_EQ(b["wall_seconds"], 30.0);
  EXPECT_EQ(b["agents"], json::parse(R"([{"agent": "coder", "calls": 1, "failed": 1, "input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0}])"));
  EXPECT_THROW(loop::compare_document(*f.store, {1, 5}), cudamaster::store::StoreError);

  EXPECT_EQ(loop::render_compare_markdown(doc),
            "| run | llm | rounds | profile | planner | status | tasks | correct | success rate | fast_1 | fast_1.5 | fast_2 | mean P | "
            "geomean vs vendor | coder | debug | planner | tokens in / out | cost | wall time |\n"
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
            "| 1 | replay:demo.jsonl | 2 | filtered | on | finished | 1 | 1 | 100% | 100% | 100% | 0% | 1.60 | 1.30 | "
            "4100 / 1700 tok, $0.0410 | 1500 / 700 tok, $0.0150 | 2200 / 450 tok, $0.0220 | 7800 / 2850 | $0.0780 | 2.0 min |\n"
            "| 2 | openai:<b>model</b> | 3 | none | off | failed | 1 | 0 | 0% | 0% | 0% | 0% | - | - | 0 / 0 tok, $0.0000 | - | - | "
            "0 / 0 | $0.0000 | 0.5 min |\n"
            "\nSame in every run: allow_libraries=no, debug_loops=2, device=Test <GPU> & co, executor=local, min_gain=0.02, patience=3, "
            "precisions=fp32, sanitize=yes, tasks=spmv_csr\n");

  const std::string html = loop::render_compare_html(doc);
  EXPECT_EQ(html.find("<b>model"), std::string::npos);
  EXPECT_EQ(html.find("<GPU>"), std::string::npos);
  EXPECT_NE(html.find("run 2: llm=openai:&lt;b&gt;model&lt;/b&gt;, rounds=3, profile=none, planner=off"), std::string::npos);
  EXPECT_NE(html.find("<th class=\"flag\">planner</th>"), std::string::npos);
  EXPECT_EQ(count(html, "<svg"), 1u);
  EXPECT_NE(html.find("fast_1.5 = 100%"), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos) << "self-contained: no URL at all";
}

// The committed H200 demo (on a copy): the replayed spmv_csr job's six candidates and its plans.
TEST(ReportDocument, CommittedDemoStore) {
  cmtest::TempDir dir;
  const std::string db = dir.file("demo.db");
  std::filesystem::copy_file(CM_DEMO_DB, db);
  auto store = cudamaster::store::RunStore::open(db);
  const json doc = loop::report_document(*store, 1);
  const json& job = doc["jobs"][0];
  std::vector<std::string> statuses;
  for (const json& c : job["candidates"]) statuses.push_back(c["status"]);
  EXPECT_EQ(statuses, (std::vector<std::string>{"baseline", "vendor", "failed", "failed", "rejected", "accepted"}));
  const json& best = job["candidates"][5];
  ASSERT_EQ(best["shapes"].size(), 6u);
  EXPECT_EQ(best["shapes"][0]["shape"], "rows=1024,cols=2048");
  EXPECT_NEAR(best["shapes"][0]["median_us"].get<double>(), 13.856, 1e-3);
  EXPECT_NEAR(best["shapes"][0]["vs_vendor"].get<double>(), 4.0, 1e-9);
  EXPECT_NEAR(best["p_remeasured"].get<double>(), 1.0299, 1e-4);
  EXPECT_NE(job["candidates"][2]["reason"].get<std::string>().find("__shfl_down"), std::string::npos);
  EXPECT_EQ(job["rounds"][0]["plan_detail"]["strategies"][0]["name"], "block per row");
  EXPECT_EQ(job["rounds"][0]["plan_detail"]["expected_speedup"], 3.0);
  EXPECT_EQ(job["rounds"][1]["plan_detail"]["strategies"].size(), 2u);
  ASSERT_EQ(job["profiles"].size(), 2u);
  EXPECT_EQ(job["profiles"][0]["metrics"].size(), 13u);
  EXPECT_EQ(job["profiles"][0]["top_stall"], "long_scoreboard");
  EXPECT_NEAR(job["vendor_p"].get<double>(), 0.219, 1e-3);
  const std::string html = loop::render_html(doc);
  EXPECT_EQ(count(html, "<svg"), 1u);
  EXPECT_NE(html.find(">vendor (P = 0.22)<"), std::string::npos);

  const json cmp = loop::compare_document(*store, {1});
  EXPECT_TRUE(cmp["differing"].empty());
  EXPECT_EQ(cmp["runs"][0]["label"], "run 1");
  EXPECT_NEAR(cmp["runs"][0]["suite"]["mean_p"].get<double>(), 1.0299, 1e-4);
  EXPECT_EQ(cmp["common"]["profile"], "filtered");
}

// The committed H200 store of a four-task run cut by a timeout (on a copy): spmv_csr finished, the
// other three jobs still "running". A candidate whose round has no recorded outcome is undecided,
// not rejected or failed, and the page says that the run recorded no end.
TEST(ReportDocument, CommittedCutRunStore) {
  cmtest::TempDir dir;
  const std::string db = dir.file("suite4_cut.db");
  std::filesystem::copy_file(std::filesystem::path(CM_DEMO_DB).parent_path() / "suite4_cut.db", db);
  auto store = cudamaster::store::RunStore::open(db);
  const json doc = loop::report_document(*store, 1);
  EXPECT_EQ(doc["status"], "running");
  ASSERT_EQ(doc["jobs"].size(), 4u);
  std::map<std::string, std::vector<std::string>> statuses;
  for (const json& job : doc["jobs"])
    for (const json& c : job["candidates"]) statuses[job["task"]].push_back(c["status"]);
  using V = std::vector<std::string>;
  EXPECT_EQ(statuses["spmv_csr"], (V{"baseline", "vendor", "failed", "failed", "rejected", "rejected"}));
  EXPECT_EQ(statuses["vector_add"], (V{"baseline", "vendor", "rejected", "undecided"}));
  EXPECT_EQ(statuses["softmax"], (V{"baseline", "vendor", "failed", "undecided"}));
  EXPECT_EQ(statuses["dot_product"], (V{"baseline", "vendor", "undecided"}));
  std::vector<int> rounds;
  for (const json& t : doc["summary"]["tasks"]) rounds.push_back(t["rounds"]);
  EXPECT_EQ(rounds, (std::vector<int>{2, 1, 0, 0})) << "an unfinished job: the rounds it recorded so far";
  const json& dot = doc["jobs"][3];
  ASSERT_EQ(dot["task"], "dot_product");
  EXPECT_EQ(dot["status"], "running");
  EXPECT_TRUE(dot["rounds"].empty());
  EXPECT_NEAR(dot["candidates"][2]["p"].get<double>(), 1.14, 0.01) << "measured, passed, but never judged by its round";
  EXPECT_EQ(dot["candidates"][2]["reason"], "round 1 has no recorded outcome (the job did not finish it)");
  EXPECT_EQ(doc["jobs"][1]["candidates"][3]["reason"], "not evaluated; round 2 has no recorded outcome (the job did not finish it)");
  const std::string html = loop::render_html(doc);
  EXPECT_NE(html.find("<b>No end recorded</b> (last update 2026-12-01T22:29:31Z)"), std::string::npos);
  EXPECT_NE(html.find("<b>3</b><span>not finished"), std::string::npos);
  EXPECT_NE(html.find("<p class=\"meta\">running; best: -"), std::string::npos) << "no empty stop reason in parentheses";
  EXPECT_EQ(count(html, "<svg"), 4u);
  EXPECT_EQ(count(html, ">undecided (round not finished)<"), 2u) << "softmax and dot_product: undecided candidates with a P";
}

}  // namespace

// Issue 39: the run summary and the page show the best kernel's three yardsticks - P, the ratio
// vs the vendor (or why there is none) and its fraction of the roofline at its largest shape.
TEST(ReportDocument, BestKernelYardsticks) {
  FixtureStore f;
  const json s = loop::build_summary(*f.store, 1);
  ASSERT_EQ(s["tasks"].size(), 1u);
  const json& t = s["tasks"][0];
  EXPECT_EQ(t["p"], 1.6);
  EXPECT_EQ(t["vs_vendor"], 1.3);
  ASSERT_TRUE(t["roofline"].is_object()) << t.dump();
  EXPECT_EQ(t["roofline"]["sol"], 0.25);  // the accepted candidate's timed evaluation at rows=4096
  EXPECT_EQ(t["roofline"]["shape"], "rows=4096");
  EXPECT_FALSE(t["roofline"]["launch_bound"].get<bool>());  // the fixture's device has no launch floor
  EXPECT_TRUE(t["vendor"].is_object());  // the task's route (or why there is none), from the registry
  const std::string text = loop::render_summary(s);
  EXPECT_NE(text.find("SOL"), std::string::npos);
  EXPECT_NE(text.find("25%"), std::string::npos) << text;
  EXPECT_NE(text.find("Launch floor: not measured"), std::string::npos) << text;
  const std::string html = loop::render_html(loop::report_document(*f.store, 1));
  EXPECT_NE(html.find("<th>SOL at largest shape</th>"), std::string::npos);
  EXPECT_NE(html.find("<td>25.0% at rows=4096</td>"), std::string::npos);
  EXPECT_NE(html.find("<th>launch-bound</th>"), std::string::npos);
}
