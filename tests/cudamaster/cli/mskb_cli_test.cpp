// The real `mskb` binary over the fake mskb-runner (MSKB_RUNNER) and the fake nvcc: lanes and GPUs,
// categories, the sanitizer gate, merge, --skip-done, builds, the two phases, a killed run's partial
// report, the CSV, and submissions.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "cli_fixture.hpp"
#include "mskb/core/registry.hpp"

using namespace cmtest;
using agents::Agent;

// mskb itself over the fake runner: a timed run spreads (task, precision) groups over the GPU
// lanes and keeps each group on one GPU; wrong/ kernels are judged against their declared
// disposition (the fake runner passes everything, so each one is a FAIL and the exit code is 1).
TEST(MskbCli, LanesKeepEachGroupOnOneGpuAndWrongKernelsMustMatchTheirDeclaration) {
  Cli c;
  c.env["FAKE_GPUS"] = "2";
  c.env["FAKE_RUNNER_SLEEP_MS"] = "150";
  c.env.erase("CUDA_VISIBLE_DEVICES");
  const Proc p = c.run({"run", "--task", "spmv_csr", "--precision", "all", "--budget", "0.01", "--json", c.dir.file("run.json")}, CM_MSKB_BIN);
  ASSERT_EQ(p.code, 0) << p.err;
  std::set<std::string> used;
  for (const std::string& line : read_lines(c.dir.file("runner.log"))) {
    const auto at = line.find(" gpu=");
    ASSERT_NE(at, std::string::npos) << "a runner without CUDA_VISIBLE_DEVICES: " << line;
    used.insert(line.substr(at + 5));
  }
  EXPECT_EQ(used, (std::set<std::string>{"0", "1"}));
  const json report = json::parse(read_file(c.dir.file("run.json")));
  std::map<std::string, std::set<std::string>> by_precision;
  for (const json& r : report["contenders"]) by_precision[r["precision"].get<std::string>()].insert(r["gpu"].get<std::string>());
  ASSERT_EQ(by_precision.size(), 2u);
  for (const auto& [prec, gpus] : by_precision) EXPECT_EQ(gpus.size(), 1u) << prec << ": baseline and vendor on different GPUs";
  EXPECT_NE(*by_precision["fp32"].begin(), *by_precision["bf16"].begin());

  const Proc bad = c.run({"run", "--task", "spmv_csr", "--gpus", "2"}, CM_MSKB_BIN);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--gpus: no GPU 2 (2 visible)"), std::string::npos) << bad.err;

  const Proc wrong = c.run({"check", "--task", "spmv_csr", "--contenders", "wrong", "--gpus", "1", "--precision", "fp32"}, CM_MSKB_BIN);
  EXPECT_EQ(wrong.code, 1) << wrong.err;
  EXPECT_NE(wrong.out.find("FAIL spmv_csr fp32 wrong/"), std::string::npos) << wrong.out;
  EXPECT_NE(wrong.out.find(", got passed"), std::string::npos) << wrong.out;
  EXPECT_EQ(wrong.out.find("PASS"), std::string::npos) << wrong.out;
}

// --category picks every task of one category (and only those); it excludes --all and --task.
TEST(MskbCli, CategorySelectsEveryTaskOfThatCategory) {
  Cli c;
  const Proc p = c.run({"check", "--category", "scientific", "--contenders", "baseline", "--precision", "fp32", "--checks-per-gpu", "4",
                        "--json", c.dir.file("check.json")},
                       CM_MSKB_BIN);
  ASSERT_EQ(p.code, 0) << p.err;
  std::set<std::string> want, got;
  for (const auto& t : mskb::all_tasks())
    if (t.category == "scientific") want.insert(t.name);
  const json report = json::parse(read_file(c.dir.file("check.json")));
  for (const json& r : report["contenders"]) got.insert(r["task"].get<std::string>());
  EXPECT_EQ(got, want);
  EXPECT_GE(want.size(), 7u);
  for (const auto& args : std::vector<std::vector<std::string>>{{"check", "--category", "sparse", "--all"},
                                                                 {"run", "--category", "sparse", "--task", "spmv_csr"}}) {
    const Proc bad = c.run(args, CM_MSKB_BIN);
    EXPECT_EQ(bad.code, 2) << bad.err;
    EXPECT_NE(bad.err.find("needs exactly one of --task T[,T...], --category C or --all"), std::string::npos) << bad.err;
  }
  EXPECT_NE(c.run({"check", "--category", "physics"}, CM_MSKB_BIN).code, 0);
}

// Device-busy gaps after a call are `unsynced` in a plain check, but not judged under the
// sanitizer (its instrumentation distorts them); memcheck leaves API errors to the harness.
// mskb run --sanitize: memcheck and racecheck on the smallest shapes before a contender (not a
// vendor) is timed; a report makes it sanitizer_error and it is not timed.
TEST(MskbCli, RunSanitizeGatesTheTimingOnComputeSanitizer) {
  Cli c;
  c.env["MSKB_SANITIZER"] = std::string(CM_AGENTS_FAKES) + "/compute-sanitizer";
  c.env["FAKE_SANITIZER_LOG"] = c.dir.file("sanitizer.log");
  const std::string kernel = c.dir.file("racy.cu");
  std::ofstream(kernel) << read_file(mskb::source_root() + "/tasks/sparse/spmv_csr/baseline_fp32.cu")
                        << "\n// fake-sanitizer: racecheck Race reported between Write access and Read access\n";
  const Proc p = c.run({"run", "--task", "spmv_csr", "--precision", "fp32", "--contenders", "baseline", "--kernel", kernel,
                        "--sanitize", "--budget", "0.01", "--json", c.dir.file("run.json")},
                       CM_MSKB_BIN);
  ASSERT_EQ(p.code, 1) << p.err;  // a contender is not correct
  const json report = json::parse(read_file(c.dir.file("run.json")));
  ASSERT_EQ(report["contenders"].size(), 2u) << report.dump();
  for (const json& r : report["contenders"]) {
    if (r["contender"] == "baseline") {
      EXPECT_EQ(r["disposition"], "passed") << r.dump();
      EXPECT_EQ(r["sanitized"]["tools"], json({"memcheck", "racecheck"})) << r.dump();
      EXPECT_EQ(r["sanitized"]["shapes"], mskb::kSanitizerShapes) << r.dump();
      EXPECT_GT(r["phase_seconds"].value("sanitizer", 0.0), 0.0) << r.dump();
    } else {
      EXPECT_EQ(r["sanitized"]["tools"], json({"memcheck"})) << "memcheck ran clean before racecheck failed: " << r.dump();
      EXPECT_EQ(r["disposition"], "sanitizer_error") << r.dump();
      const std::string msg = r["message"];
      EXPECT_EQ(msg.rfind(std::string("racecheck on ") + mskb::kSanitizerShapes, 0), 0u) << msg;
      EXPECT_NE(msg.find("Race reported between Write access and Read access"), std::string::npos) << msg;
    }
  }
  for (const json& t : report["results"]) EXPECT_EQ(t["contender"], "baseline") << "only the baseline was timed";
  // Baseline: memcheck and racecheck; the racy kernel: memcheck (clean) and racecheck (the report).
  const auto calls = read_lines(c.dir.file("sanitizer.log"));
  ASSERT_EQ(calls.size(), 4u);
  for (const std::string& call : calls) EXPECT_NE(call.find("--target-processes all"), std::string::npos) << call;
}

TEST(MskbCli, MemcheckWrapsTheRunnerAndDoesNotJudgeGaps) {
  Cli c;
  c.env["FAKE_RUNNER_GAP_US"] = "5000";
  c.env["MSKB_SANITIZER"] = std::string(CM_AGENTS_FAKES) + "/compute-sanitizer";
  c.env["FAKE_SANITIZER_LOG"] = c.dir.file("sanitizer.log");
  const std::vector<std::string> args = {"check", "--task", "spmv_csr", "--precision", "fp32", "--contenders", "baseline"};
  const Proc plain = c.run(args, CM_MSKB_BIN);
  EXPECT_EQ(plain.code, 1) << plain.err;
  EXPECT_NE(plain.out.find("FAIL spmv_csr fp32 baseline"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("unsynced"), std::string::npos) << plain.out;
  EXPECT_TRUE(read_lines(c.dir.file("sanitizer.log")).empty()) << "a plain check ran under the sanitizer";

  std::vector<std::string> mem = args;
  mem.push_back("--memcheck");
  const Proc checked = c.run(mem, CM_MSKB_BIN);
  EXPECT_EQ(checked.code, 0) << checked.out << checked.err;
  EXPECT_NE(checked.out.find("PASS spmv_csr fp32 baseline"), std::string::npos) << checked.out;
  const auto calls = read_lines(c.dir.file("sanitizer.log"));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].rfind("--tool memcheck --report-api-errors no --error-exitcode 86", 0), 0u) << calls[0];

  // --racecheck: the same plan under the racecheck tool (shared-memory hazards).
  std::vector<std::string> race = args;
  race.push_back("--racecheck");
  const Proc raced = c.run(race, CM_MSKB_BIN);
  EXPECT_EQ(raced.code, 0) << raced.out << raced.err;
  const auto calls2 = read_lines(c.dir.file("sanitizer.log"));
  ASSERT_EQ(calls2.size(), 2u);
  EXPECT_EQ(calls2[1].rfind("--tool racecheck --report-api-errors no --error-exitcode 86", 0), 0u) << calls2[1];
  race.push_back("--memcheck");
  const Proc both = c.run(race, CM_MSKB_BIN);
  EXPECT_NE(both.code, 0);
  EXPECT_NE(both.err.find("excludes"), std::string::npos) << both.err;
}

// mskb merge: reports of separate runs (one per category or cluster job) become one; a
// (task, precision) group comes whole from the last report that has it.
TEST(MskbCli, MergeJoinsReportsGroupByGroup) {
  Cli c;
  const std::vector<std::string> common = {"--precision", "fp32", "--budget", "0.01", "-q"};
  auto run = [&](const std::vector<std::string>& what, const std::string& out) {
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), what.begin(), what.end());
    args.insert(args.end(), common.begin(), common.end());
    args.insert(args.end(), {"--json", c.dir.file(out)});
    const Proc p = c.run(args, CM_MSKB_BIN);
    EXPECT_EQ(p.code, 0) << p.err;
  };
  run({"--task", "vector_add,spmv_csr"}, "a.json");
  run({"--task", "spmv_csr", "--contenders", "baseline"}, "b.json");
  const Proc m = c.run({"merge", c.dir.file("a.json"), c.dir.file("b.json"), "--json", c.dir.file("m.json"), "--markdown", c.dir.file("m.md")},
                       CM_MSKB_BIN);
  ASSERT_EQ(m.code, 0) << m.err;
  const json merged = json::parse(read_file(c.dir.file("m.json")));
  std::multiset<std::string> got;
  for (const json& x : merged["contenders"]) got.insert(x["task"].get<std::string>() + "/" + x["contender"].get<std::string>());
  // vector_add from a.json (baseline + vendor); spmv_csr whole from b.json (its baseline only).
  EXPECT_EQ(got, (std::multiset<std::string>{"vector_add/baseline", "vector_add/vendor", "spmv_csr/baseline"}));
  for (const json& r : merged["results"]) {
    if (r["task"] == "spmv_csr") {
      EXPECT_EQ(r["contender"], "baseline") << r.dump();
    }
  }
  EXPECT_NE(read_file(c.dir.file("m.md")).find("| vector_add | fp32 | vendor | passed |"), std::string::npos);
  EXPECT_NE(m.err.find("mskb merge: 2 reports, 3 contenders"), std::string::npos) << m.err;

  json other = json::parse(read_file(c.dir.file("b.json")));
  other["device"]["name"] = "NVIDIA A100";
  std::ofstream(c.dir.file("other.json")) << other.dump();
  std::ofstream(c.dir.file("bad.json")) << "{not json";
  const Proc mixed = c.run({"merge", c.dir.file("a.json"), c.dir.file("other.json")}, CM_MSKB_BIN);
  EXPECT_EQ(mixed.code, 2);
  EXPECT_NE(mixed.err.find("reports from different GPU models"), std::string::npos) << mixed.err;
  const Proc bad = c.run({"merge", c.dir.file("bad.json")}, CM_MSKB_BIN);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("is not valid JSON"), std::string::npos) << bad.err;

  // A report missing a field a rendering reads (found by tests/fuzz: it read freed memory) is a
  // one-line error naming the file, the entry and the field, before anything is written.
  json broken = merged;
  broken["results"][0].erase("time_us");
  std::ofstream(c.dir.file("broken.json")) << broken.dump();
  const Proc shown = c.run({"report", c.dir.file("broken.json"), "--markdown", c.dir.file("broken.md")}, CM_MSKB_BIN);
  EXPECT_EQ(shown.code, 2);
  EXPECT_EQ(shown.err.rfind("mskb: error: report: " + c.dir.file("broken.json") + ": not as mskb writes a report: results[0] (", 0), 0u)
      << shown.err;
  EXPECT_NE(shown.err.find("): no \"time_us\"\n"), std::string::npos) << shown.err;
  EXPECT_EQ(std::count(shown.err.begin(), shown.err.end(), '\n'), 1) << shown.err;
  EXPECT_FALSE(std::filesystem::exists(c.dir.file("broken.md"))) << "written before the check";
  // A merge whose Markdown needs that field: the same check, before the JSON or Markdown is written.
  const Proc merged_broken = c.run({"merge", c.dir.file("broken.json"), "--json", c.dir.file("bm.json"), "--markdown", c.dir.file("bm.md")}, CM_MSKB_BIN);
  EXPECT_EQ(merged_broken.code, 2) << merged_broken.err;
  EXPECT_NE(merged_broken.err.find("mskb: error: merge: not as mskb writes a report (places in the merged report): results["), std::string::npos)
      << merged_broken.err;
  EXPECT_NE(merged_broken.err.find("): no \"time_us\""), std::string::npos) << merged_broken.err;
  EXPECT_FALSE(std::filesystem::exists(c.dir.file("bm.json")));
  // A JSON-only merge needs none of it.
  EXPECT_EQ(c.run({"merge", c.dir.file("broken.json"), "--json", c.dir.file("bm.json")}, CM_MSKB_BIN).code, 0);

  // --expect: the merge must hold these tasks' groups whole. spmv_csr fp32 comes from b.json,
  // which lacks its vendor; no bf16 group was run.
  const Proc e = c.run({"merge", c.dir.file("a.json"), c.dir.file("b.json"), "--expect", "vector_add,spmv_csr", "--json", c.dir.file("e.json"),
                        "--markdown", c.dir.file("e.md")},
                       CM_MSKB_BIN);
  ASSERT_EQ(e.code, 1) << "a merge missing expected groups is written but fails: " << e.err;
  const json ej = json::parse(read_file(c.dir.file("e.json")));
  EXPECT_TRUE(ej.value("partial", false));
  EXPECT_EQ(ej["incomplete_groups"], json({"vector_add|bf16", "spmv_csr|fp32", "spmv_csr|bf16"}));
  EXPECT_NE(e.err.find("3 expected groups missing or not finished: vector_add|bf16 spmv_csr|fp32 spmv_csr|bf16"), std::string::npos) << e.err;
  EXPECT_NE(read_file(c.dir.file("e.md")).find("missing or not finished: vector_add|bf16, spmv_csr|fp32"), std::string::npos);
  // A bf16 run of vector_add completes that task: a.json (fp32) + d.json (bf16) hold it whole,
  // although a.json alone would not.
  const Proc d = c.run({"run", "--task", "vector_add", "--precision", "bf16", "--budget", "0.01", "-q", "--json", c.dir.file("d.json")},
                       CM_MSKB_BIN);
  ASSERT_EQ(d.code, 0) << d.err;
  const Proc whole = c.run({"merge", c.dir.file("a.json"), c.dir.file("d.json"), "--expect", "vector_add", "--json", c.dir.file("w.json")},
                           CM_MSKB_BIN);
  ASSERT_EQ(whole.code, 0) << whole.err;
  const json wj = json::parse(read_file(c.dir.file("w.json")));
  EXPECT_FALSE(wj.value("partial", false)) << wj.dump().substr(0, 400);
  EXPECT_FALSE(wj.contains("incomplete_groups"));
  EXPECT_NE(whole.err.find("every expected group whole"), std::string::npos) << whole.err;
  // A contender still waiting for its timing leaves its group unfinished.
  json pending = json::parse(read_file(c.dir.file("d.json")));
  pending["partial"] = true;
  for (json& x : pending["contenders"])
    if (x["contender"] == "vendor") x["timing_pending"] = true;
  std::ofstream(c.dir.file("pending.json")) << pending.dump();
  const Proc p = c.run({"merge", c.dir.file("a.json"), c.dir.file("pending.json"), "--expect", "vector_add", "--json", c.dir.file("p.json")},
                       CM_MSKB_BIN);
  ASSERT_EQ(p.code, 1) << p.err;
  EXPECT_EQ(json::parse(read_file(c.dir.file("p.json")))["incomplete_groups"], json({"vector_add|bf16"}));
  const Proc unknown = c.run({"merge", c.dir.file("a.json"), "--expect", "no_such_task"}, CM_MSKB_BIN);
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("no_such_task"), std::string::npos) << unknown.err;
}

// --skip-done continues a run from its (partial) report: complete groups are not run again, a
// group with a contender still waiting for its timing is; merge joins the two reports.
TEST(MskbCli, SkipDoneContinuesFromAPreviousReport) {
  Cli c;
  const std::vector<std::string> common = {"--precision", "fp32", "--budget", "0.01", "-q"};
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "run");
    args.insert(args.end(), common.begin(), common.end());
    return c.run(args, CM_MSKB_BIN);
  };
  ASSERT_EQ(run({"--task", "vector_add,spmv_csr", "--json", c.dir.file("a.json")}).code, 0);
  // As if the run had been killed while spmv_csr's vendor waited for its timing.
  json a = json::parse(read_file(c.dir.file("a.json")));
  for (json& x : a["contenders"])
    if (x["task"] == "spmv_csr" && x["contender"] == "vendor") x["timing_pending"] = true;
  a["partial"] = true;
  std::ofstream(c.dir.file("a.json")) << a.dump();
  std::remove(c.dir.file("runner.log").c_str());
  const Proc b = run({"--task", "vector_add,spmv_csr,dot_product", "--skip-done", c.dir.file("a.json"), "--json", c.dir.file("b.json")});
  ASSERT_EQ(b.code, 0) << b.err;
  std::set<std::string> ran;
  const json bj = json::parse(read_file(c.dir.file("b.json")));
  for (const json& x : bj["contenders"]) ran.insert(x["task"].get<std::string>());
  EXPECT_EQ(ran, (std::set<std::string>{"spmv_csr", "dot_product"}));
  EXPECT_EQ(read_file(c.dir.file("runner.log")).find("vector_add"), std::string::npos) << "a complete group ran again";
  const Proc m = c.run({"merge", c.dir.file("a.json"), c.dir.file("b.json"), "--json", c.dir.file("m.json")}, CM_MSKB_BIN);
  ASSERT_EQ(m.code, 0) << m.err;
  const json merged = json::parse(read_file(c.dir.file("m.json")));
  EXPECT_EQ(merged["contenders"].size(), 6u);
  for (const json& x : merged["contenders"]) EXPECT_FALSE(x.contains("timing_pending")) << x.dump();
  // A report from before `timing_pending`: a passed contender without any timed shape is not done.
  json old = json::parse(read_file(c.dir.file("m.json")));
  json kept = json::array();
  for (const json& r : old["results"])
    if (!(r["task"] == "dot_product" && r["contender"] == "baseline")) kept.push_back(r);
  old["results"] = kept;
  std::ofstream(c.dir.file("old.json")) << old.dump();
  const Proc again = run({"--task", "vector_add,spmv_csr,dot_product", "--skip-done", c.dir.file("old.json"), "--json", c.dir.file("c.json")});
  ASSERT_EQ(again.code, 0) << again.err;
  const json cj = json::parse(read_file(c.dir.file("c.json")));
  ASSERT_EQ(cj["contenders"].size(), 2u) << cj.dump();
  EXPECT_EQ(cj["contenders"][0]["task"], "dot_product");
  // The same file for both is refused (the new report would overwrite what it continues).
  const Proc same = run({"--task", "vector_add", "--skip-done", c.dir.file("a.json"), "--json", c.dir.file("a.json")});
  EXPECT_EQ(same.code, 2);
  EXPECT_NE(same.err.find("write the new report to another file"), std::string::npos) << same.err;
}

// `mskb build --task A,B` builds the shipped kernels of both tasks (setup.sh builds the slice that
// way on a machine without a GPU); an unknown name in the list is a one-line usage error.
TEST(MskbCli, BuildTakesAListOfTasks) {
  Cli c;
  c.env["FAKE_NVCC_EXPORTS"] = "extern-c";  // mskb build checks each kernel's entry points
  const Proc p = c.run({"build", "--task", "vector_add,dot_product", "--json", "-"}, CM_MSKB_BIN);
  ASSERT_EQ(p.code, 0) << p.err;
  std::set<std::string> folders;
  for (const json& k : json::parse(p.out)) {
    const std::string path = k["kernel"].get<std::string>();
    if (path.find("/tasks/algebra/vector_add/") != std::string::npos) folders.insert("vector_add");
    if (path.find("/tasks/algebra/dot_product/") != std::string::npos) folders.insert("dot_product");
  }
  EXPECT_EQ(folders, (std::set<std::string>{"vector_add", "dot_product"})) << p.out.substr(0, 600);
  const Proc repeated = c.run({"build", "--task", "vector_add", "--task", "dot_product", "--json", "-"}, CM_MSKB_BIN);
  ASSERT_EQ(repeated.code, 0) << repeated.err;
  EXPECT_EQ(json::parse(repeated.out).size(), json::parse(p.out).size());
  const Proc bad = c.run({"build", "--task", "vector_add,bogus"}, CM_MSKB_BIN);
  EXPECT_EQ(bad.code, 2) << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  EXPECT_NE(bad.err.find("unknown task 'bogus'"), std::string::npos) << bad.err;
}

// The slowest input generation of each contender (its shape and seconds, over both parts of a
// two-phase run) is in the JSON report and named in the Markdown's phase section.
TEST(MskbCli, SlowestInputGenerationIsReported) {
  Cli c;
  const mskb::TaskSpec& spec = mskb::get_task("spmv_csr");
  const std::string slow = spec.heldout.back().str();  // checked in the checks part only
  c.env["FAKE_RUNNER_SLOW_GENERATE"] = slow;
  const Proc p = c.run({"run", "--task", "spmv_csr", "--precision", "fp32", "--budget", "0.01", "--checks-per-gpu", "2", "--json",
                        c.dir.file("run.json"), "--markdown", c.dir.file("run.md")},
                       CM_MSKB_BIN);
  ASSERT_EQ(p.code, 0) << p.err;
  const json report = json::parse(read_file(c.dir.file("run.json")));
  ASSERT_EQ(report["contenders"].size(), 2u);
  for (const json& r : report["contenders"]) {
    ASSERT_TRUE(r["slowest_generate"].is_object()) << r.dump();
    EXPECT_EQ(r["slowest_generate"]["shape"], slow) << r.dump();
    EXPECT_DOUBLE_EQ(r["slowest_generate"]["seconds"].get<double>(), 1.5) << "survives the timing part's merge: " << r.dump();
  }
  const std::string md = read_file(c.dir.file("run.md"));
  EXPECT_NE(md.find("Slowest input generation of the run: 1.50 s (spmv_csr fp32 "), std::string::npos) << md;
  EXPECT_NE(md.find("1.50 (" + slow + ")"), std::string::npos) << md;

  // Without a slow shape every check takes the same 0.25 s: the first shape that took it is named.
  c.env.erase("FAKE_RUNNER_SLOW_GENERATE");
  const Proc q = c.run({"run", "--task", "spmv_csr", "--precision", "fp32", "--budget", "0.01", "--json", c.dir.file("run2.json")}, CM_MSKB_BIN);
  ASSERT_EQ(q.code, 0) << q.err;
  for (const json& r : json::parse(read_file(c.dir.file("run2.json")))["contenders"])
    EXPECT_DOUBLE_EQ(r["slowest_generate"]["seconds"].get<double>(), 0.25) << r.dump();
}

// --checks-per-gpu > 1 makes a timed run two-phase: every contender's checks (no timing) first,
// then a timing part per contender that passed; counts add up and the scores are the same kind.
TEST(MskbCli, TwoPhaseRunChecksInParallelThenTimes) {
  Cli c;
  const Proc p = c.run({"run", "--task", "spmv_csr", "--precision", "fp32", "--budget", "0.01", "--checks-per-gpu", "3", "--json",
                        c.dir.file("run.json")},
                       CM_MSKB_BIN);
  ASSERT_EQ(p.code, 0) << p.err;
  const mskb::TaskSpec& spec = mskb::get_task("spmv_csr");
  const std::size_t paper = spec.paper.size(), heldout = spec.heldout.size(), random = 2;
  int checks_parts = 0, timing_parts = 0;
  for (const std::string& line : read_lines(c.dir.file("runner.log"))) {
    if (line.find(" timings=0 ") != std::string::npos) {
      ++checks_parts;  // every seed but the last two of each paper shape; held-out and random shapes whole
      EXPECT_NE(line.find(" checks=" + std::to_string(paper + 3 * heldout + 3 * random) + " "), std::string::npos) << line;
    } else {
      ++timing_parts;  // the last two seeds of each paper shape (the second in the first's buffers), then timed
      EXPECT_NE(line.find(" timings=" + std::to_string(paper) + " checks=" + std::to_string(2 * paper) + " "), std::string::npos) << line;
    }
  }
  EXPECT_EQ(checks_parts, 2);  // baseline and vendor
  EXPECT_EQ(timing_parts, 2);
  const json report = json::parse(read_file(c.dir.file("run.json")));
  ASSERT_EQ(report["contenders"].size(), 2u);
  const int full = 3 * static_cast<int>(spec.paper.size() + spec.heldout.size() + random);
  for (const json& r : report["contenders"]) {
    EXPECT_EQ(r["disposition"], "passed") << r.dump();
    EXPECT_EQ(r["checks_total"].get<int>(), full) << "every check once: the last two seeds of each paper shape in the timing part";
    // Runner time by phase, summed over both parts (the fake reports 0.25/0.125/0.0625/0.5 s per check, 2 s per timing).
    EXPECT_DOUBLE_EQ(r["phase_seconds"]["generate"].get<double>(), 0.25 * full) << r.dump();
    EXPECT_DOUBLE_EQ(r["phase_seconds"]["reference"].get<double>(), 0.125 * full);
    EXPECT_DOUBLE_EQ(r["phase_seconds"]["waited"].get<double>(), 0.0625 * full);
    EXPECT_DOUBLE_EQ(r["phase_seconds"]["check"].get<double>(), 0.5 * full);
    EXPECT_DOUBLE_EQ(r["phase_seconds"]["timing"].get<double>(), 2.0 * static_cast<double>(paper));
    EXPECT_EQ(r["checks_passed"], r["checks_total"]);
  }
  int timed = 0;
  for (const json& t : report["results"]) timed += t["sweep"] == "paper" ? 1 : 0;
  EXPECT_EQ(timed, 2 * static_cast<int>(spec.paper.size()));
  EXPECT_FALSE(report["scores"].empty());

  // With the large sweep timed, its shapes (one seed each) are generated in the timing part only.
  std::remove(c.dir.file("runner.log").c_str());
  const Proc big = c.run({"run", "--task", "spmv_csr", "--precision", "fp32", "--contenders", "baseline", "--sweep", "paper,large",
                          "--budget", "0.01", "--checks-per-gpu", "2", "--markdown", c.dir.file("big.md")},
                         CM_MSKB_BIN);
  ASSERT_EQ(big.code, 0) << big.err;
  // The Markdown summary scores each timed sweep and says where the evaluation time went.
  const std::string md = read_file(c.dir.file("big.md"));
  EXPECT_NE(md.find("| P [interval] paper | geomean paper | P [interval] large | geomean large |"), std::string::npos) << md;
  EXPECT_NE(md.find("| spmv_csr | fp32 | baseline | passed | "), std::string::npos) << md;
  EXPECT_NE(md.find("## Evaluation time by phase"), std::string::npos) << md;
  EXPECT_NE(md.find("| generate | reference | waited | check | timing | total |"), std::string::npos) << md;
  const std::vector<std::string> lines = read_lines(c.dir.file("runner.log"));
  ASSERT_EQ(lines.size(), 2u);
  const std::size_t large = spec.large.size();
  EXPECT_NE(lines[0].find(" timings=0 checks=" + std::to_string(paper + 3 * heldout + 3 * random) + " large=0"), std::string::npos)
      << lines[0];
  EXPECT_NE(lines[1].find(" timings=" + std::to_string(paper + large) + " checks=" + std::to_string(2 * (paper + large)) +
                          " large=" + std::to_string(large)),
            std::string::npos)
      << lines[1];
}

// --json is rewritten after every contender ("partial": true), so a run killed mid-way leaves
// valid JSON with what it measured; a finished run's JSON has no "partial".
TEST(MskbCli, KilledRunLeavesAValidPartialReport) {
  Cli c;
  c.env["FAKE_RUNNER_SLEEP_MS"] = "400";
  const std::string out = c.dir.file("run.json"), md = c.dir.file("run.md");
  // One check and one timing at a time: on a many-core machine the four contenders would otherwise
  // all end together, before the first partial report is read.
  const pid_t pid = spawn({"run", "--task", "spmv_csr", "--precision", "all", "--budget", "0.01", "--checks-per-gpu", "1",
                           "--timing-overlap", "1", "--json", out, "--markdown", md},
                          c.env, c.dir.file(""), "partial", CM_MSKB_BIN);
  json seen;
  for (int i = 0; i < 300 && seen.is_null(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const std::string text = read_file(out);
    if (text.empty()) continue;
    json j = json::parse(text, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << "a half-written report: " << text.substr(0, 200);
    // The Markdown is written right after the JSON: wait for both before the kill.
    if (!j["contenders"].empty() && read_file(md).find("Partial report") != std::string::npos) seen = j;
  }
  ::kill(pid, SIGKILL);
  finish(pid, c.dir.file(""), "partial");
  ASSERT_FALSE(seen.is_null()) << "no partial report appeared";
  EXPECT_EQ(seen.value("partial", false), true);
  EXPECT_LT(seen["contenders"].size(), 4u);
  EXPECT_EQ(seen["contenders"][0]["disposition"], "passed");
  EXPECT_NE(read_file(md).find("Partial report"), std::string::npos);
  const json after_kill = json::parse(read_file(out));  // still valid after SIGKILL
  EXPECT_TRUE(after_kill.value("partial", false));

  c.env.erase("FAKE_RUNNER_SLEEP_MS");
  const Proc done = c.run({"run", "--task", "spmv_csr", "--precision", "fp32", "--budget", "0.01", "--json", out}, CM_MSKB_BIN);
  ASSERT_EQ(done.code, 0) << done.err;
  const json final_report = json::parse(read_file(out));
  EXPECT_FALSE(final_report.contains("partial"));
  EXPECT_EQ(final_report["contenders"].size(), 2u);
}

namespace {

// The fields of RFC 4180 CSV text (quoted fields may hold commas, quotes and line breaks).
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false, ended = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      rows.back().push_back(field);
      field.clear();
    } else if (ch == '\r' || ch == '\n') {
      if (ch == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      rows.back().push_back(field);
      field.clear();
      rows.emplace_back();
      ended = true;
      continue;
    } else {
      field += ch;
    }
    ended = false;
  }
  if (!ended) rows.back().push_back(field);
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

std::string shape_text(const json& shape) {
  std::string s;
  for (auto it = shape.begin(); it != shape.end(); ++it) s += (s.empty() ? "" : ",") + it.key() + "=" + std::to_string(it.value().get<long long>());
  return s;
}

std::string number_text(const json& v) { return v.is_null() ? "" : v.dump(); }

}  // namespace

// mskb run|check --csv: a row per timed shape (run) or per contender (check), RFC 4180 quoting,
// the same numbers as the JSON report.
TEST(MskbCli, CsvHasARowPerTimedShapeOrPerContender) {
  Cli c;
  const Proc p = c.run({"run", "--task", "spmv_csr", "--precision", "fp32", "--budget", "0.01", "-q", "--json", c.dir.file("run.json"), "--csv",
                        c.dir.file("run.csv")},
                       CM_MSKB_BIN);
  ASSERT_EQ(p.code, 0) << p.err;
  const json report = json::parse(read_file(c.dir.file("run.json")));
  const std::string text = read_file(c.dir.file("run.csv"));
  const auto rows = parse_csv(text);
  ASSERT_EQ(rows.size(), report["results"].size() + 1) << text;
  EXPECT_EQ(rows[0], (std::vector<std::string>{"task", "precision", "contender", "sweep", "shape", "complexity", "disposition", "median_us",
                                               "min_us", "max_us", "n", "noise", "speedup_vs_baseline", "ratio_vs_vendor", "sol_fraction",
                                               "launch_bound", "vendor", "device_us", "host_share", "device_samples", "host_bound",
                                               "device_note"}));
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const json& r = report["results"][i - 1];
    ASSERT_EQ(rows[i].size(), 22u) << i;
    EXPECT_EQ(rows[i][15], r["launch_bound"].get<bool>() ? "true" : "false");
    EXPECT_EQ(rows[i][0], "spmv_csr");
    EXPECT_EQ(rows[i][2], r["contender"].get<std::string>());
    EXPECT_EQ(rows[i][4], shape_text(r["shape"]));
    EXPECT_EQ(rows[i][7], number_text(r["time_us"]["median"]));
    EXPECT_EQ(rows[i][10], number_text(r["time_us"]["n"]));
    EXPECT_EQ(rows[i][12], number_text(r["speedup_vs_baseline"]));
    EXPECT_EQ(rows[i][13], number_text(r["ratio_vs_vendor"]));
  }
  EXPECT_NE(text.find(",\"" + shape_text(report["results"][0]["shape"]) + "\","), std::string::npos) << "a shape with commas is quoted";

  const Proc chk = c.run({"check", "--task", "spmv_csr", "--contenders", "wrong", "--precision", "fp32", "-q", "--csv", c.dir.file("check.csv")},
                         CM_MSKB_BIN);
  EXPECT_EQ(chk.code, 1) << chk.err;
  const auto crows = parse_csv(read_file(c.dir.file("check.csv")));
  ASSERT_GE(crows.size(), 2u);
  EXPECT_EQ(crows[0], (std::vector<std::string>{"task", "precision", "contender", "disposition", "checks_passed", "checks_total", "message"}));
  std::size_t fails = 0;
  for (std::size_t i = 1; i < crows.size(); ++i) {
    ASSERT_EQ(crows[i].size(), 7u);
    EXPECT_EQ(crows[i][2].rfind("wrong/", 0), 0u) << crows[i][2];
    fails += chk.out.find("FAIL spmv_csr fp32 " + crows[i][2] + ":") != std::string::npos;
  }
  EXPECT_EQ(fails, crows.size() - 1) << chk.out;
  // --csv -: the CSV alone on stdout, the PASS / FAIL lines on stderr.
  const Proc dash = c.run({"check", "--task", "spmv_csr", "--contenders", "wrong", "--precision", "fp32", "-q", "--csv", "-"}, CM_MSKB_BIN);
  EXPECT_EQ(dash.code, 1);
  EXPECT_EQ(parse_csv(dash.out), crows);
  EXPECT_NE(dash.err.find("FAIL spmv_csr fp32 wrong/"), std::string::npos) << dash.err;
}

namespace {

// A file of the test folder, its folders made.
void write_kernel(const Cli& c, const std::string& rel, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(c.dir.file(rel)).parent_path());
  std::ofstream(c.dir.file(rel)) << text << "\n";
}

const json* summary_row(const json& report, const std::string& category) {
  for (const json& r : report["submission_summary"]["rows"])
    if (r["category"] == category) return &r;
  return nullptr;
}

}  // namespace

// mskb run --submission DIR: both naming layouts, a TASK.cu that exports only its fp32 entry point
// (no bf16 group at all), an unknown name and a file in another folder (skipped, not fatal), two
// files with the same stem (both in every report, told apart by their folder), and the summary
// against numbers worked out by hand from the fake runner's speeds (every shape's time is the
// baseline's divided by the speed; the vendor is as fast as the baseline, spmv_csr's 1.5x).
TEST(MskbCli, SubmissionJudgesAFolderOfKernelsAndSummarizesIt) {
  Cli c;
  write_kernel(c, "sub/vector_add.cu", "// fake-eval: speed=2.5\n// fake-build: exports vector_add");
  write_kernel(c, "sub/fp32/vector_add.cu", "// fake-eval: speed=0.5");
  write_kernel(c, "sub/RELU.cu", "// fake-eval: speed=1.25");  // fp32 alone: bf16/RELU.cu is the bf16 one
  write_kernel(c, "sub/bf16/RELU.cu", "// fake-eval: speed=3");
  write_kernel(c, "sub/sigmoid_bf16.cu", "// fake-eval: wrong_result");
  write_kernel(c, "sub/fp32/spmv_csr.cu", "// fake-eval: speed=3");
  write_kernel(c, "sub/nosuchtask.cu", "// fake-eval: speed=9");
  write_kernel(c, "sub/misc/helper.cu", "// fake-eval: speed=9");
  write_kernel(c, "sub/README.md", "not a kernel");
  const Proc p = c.run({"run", "--submission", c.dir.file("sub"), "--budget", "0.01", "-q", "--json", c.dir.file("run.json"), "--markdown",
                        c.dir.file("run.md"), "--csv", c.dir.file("run.csv")},
                       CM_MSKB_BIN);
  ASSERT_EQ(p.code, 1) << p.err;  // sigmoid_bf16 is wrong; the skipped files are not failures
  const json report = json::parse(read_file(c.dir.file("run.json")));
  std::set<std::string> got;
  for (const json& e : report["contenders"])
    got.insert(e["task"].get<std::string>() + " " + e["precision"].get<std::string>() + " " + e["contender"].get<std::string>());
  EXPECT_EQ(got, (std::set<std::string>{"vector_add fp32 baseline", "vector_add fp32 vendor", "vector_add fp32 sub/vector_add",
                                        "vector_add fp32 fp32/vector_add", "RELU fp32 baseline", "RELU fp32 vendor", "RELU fp32 sub/RELU",
                                        "RELU bf16 baseline", "RELU bf16 vendor", "RELU bf16 bf16/RELU", "sigmoid bf16 baseline",
                                        "sigmoid bf16 vendor", "sigmoid bf16 sigmoid_bf16", "spmv_csr fp32 baseline", "spmv_csr fp32 vendor",
                                        "spmv_csr fp32 spmv_csr"}));

  // Skipped files: one line each on stdout, in the JSON and the Markdown.
  const json& skipped = report["submission"]["skipped"];
  ASSERT_EQ(skipped.size(), 2u) << skipped;
  EXPECT_EQ(skipped[0]["file"], "misc/helper.cu");
  EXPECT_EQ(skipped[1]["file"], "nosuchtask.cu");
  EXPECT_NE(skipped[1]["reason"].get<std::string>().find("no task named 'nosuchtask'"), std::string::npos);
  const std::string md = read_file(c.dir.file("run.md"));
  for (const json& f : skipped) {
    const std::string line = f["file"].get<std::string>() + ": " + f["reason"].get<std::string>();
    EXPECT_NE(p.out.find("skipped " + line + "\n"), std::string::npos) << p.out;
    EXPECT_NE(md.find("- " + line + "\n"), std::string::npos) << md;
  }

  // The two vector_add kernels stay apart in the table, the Markdown and the CSV.
  for (const std::string name : {"sub/vector_add", "fp32/vector_add"}) {
    EXPECT_NE(p.out.find(" " + name + " "), std::string::npos) << p.out;
    EXPECT_NE(md.find("| vector_add | fp32 | " + name + " |"), std::string::npos) << md;
    EXPECT_NE(read_file(c.dir.file("run.csv")).find("vector_add,fp32," + name + ",paper,"), std::string::npos);
  }

  // The summary, by hand: P per kernel = its speed; vs vendor = speed / vendor speed.
  const json& sum = report["submission_summary"];
  EXPECT_EQ(sum["kernels"], 6);
  EXPECT_EQ(sum["correct"], 5);
  EXPECT_EQ(sum["skipped"], 2);
  struct Want {
    const char* category;
    int entries, correct;
    double share, f1, f15, f2, mean, geo, vendor;
  };
  const std::vector<Want> want = {
      {"algebra", 2, 2, 1.0, 0.5, 0.5, 0.5, (2.5 + 0.5) / 2, std::sqrt(2.5 * 0.5), std::sqrt(2.5 * 0.5)},
      {"llm", 3, 2, 2.0 / 3, 2.0 / 3, 1.0 / 3, 1.0 / 3, (1.25 + 3) / 2, std::sqrt(1.25 * 3), std::sqrt(1.25 * 3)},
      {"sparse", 1, 1, 1.0, 1.0, 1.0, 1.0, 3.0, 3.0, 2.0},
      {"all", 6, 5, 5.0 / 6, 4.0 / 6, 3.0 / 6, 3.0 / 6, (2.5 + 0.5 + 1.25 + 3 + 3) / 5, std::pow(2.5 * 0.5 * 1.25 * 3 * 3, 0.2),
       std::pow(2.5 * 0.5 * 1.25 * 3 * 2, 0.2)},
  };
  ASSERT_EQ(sum["rows"].size(), want.size()) << sum.dump(1);
  for (const Want& w : want) {
    const json* r = summary_row(report, w.category);
    ASSERT_NE(r, nullptr) << w.category;
    EXPECT_EQ((*r)["sweep"], "paper");
    EXPECT_EQ((*r)["entries"], w.entries) << w.category;
    EXPECT_EQ((*r)["correct"], w.correct) << w.category;
    EXPECT_NEAR((*r)["share_correct"].get<double>(), w.share, 1e-9) << w.category;
    EXPECT_NEAR((*r)["fast_1"].get<double>(), w.f1, 1e-9) << w.category;
    EXPECT_NEAR((*r)["fast_1_5"].get<double>(), w.f15, 1e-9) << w.category;
    EXPECT_NEAR((*r)["fast_2"].get<double>(), w.f2, 1e-9) << w.category;
    EXPECT_NEAR((*r)["mean_P"].get<double>(), w.mean, 1e-6) << w.category;
    EXPECT_NEAR((*r)["geomean_P"].get<double>(), w.geo, 1e-6) << w.category;
    EXPECT_NEAR((*r)["vendor_ratio"].get<double>(), w.vendor, 1e-6) << w.category;
  }
  EXPECT_NE(p.out.find("paper    all                6       83%       67%       50%       50%      2.05      1.70      1.56\n"), std::string::npos)
      << p.out;
  EXPECT_NE(md.find("| paper | all | 6 | 83% | 67% | 50% | 50% | 2.05 | 1.70 | 1.56 |"), std::string::npos) << md;

  // mskb check --submission, narrowed to two tasks: the kernels alone, by name where the file names repeat.
  const Proc chk = c.run({"check", "--submission", c.dir.file("sub"), "--task", "vector_add,RELU", "--precision", "fp32", "-q", "--json",
                          c.dir.file("check.json")},
                         CM_MSKB_BIN);
  ASSERT_EQ(chk.code, 0) << chk.err << chk.out;
  for (const char* line : {"PASS vector_add fp32 sub/vector_add: ", "PASS vector_add fp32 fp32/vector_add: ", "PASS RELU fp32 sub/RELU: "})
    EXPECT_NE(chk.out.find(line), std::string::npos) << chk.out;
  const json checked = json::parse(read_file(c.dir.file("check.json")));
  EXPECT_EQ(checked["contenders"].size(), 3u) << "no baseline or vendor in a check";
  EXPECT_EQ(checked["submission_summary"]["rows"].back()["fast_1"], nullptr);
  EXPECT_NE(chk.out.find("submission: 3 kernels judged (3 correct), 2 files skipped; not timed"), std::string::npos) << chk.out;

  // mskb merge keeps the skipped files and computes the summary again.
  const Proc merged = c.run({"merge", c.dir.file("check.json"), c.dir.file("run.json"), "--json", c.dir.file("merged.json")}, CM_MSKB_BIN);
  ASSERT_EQ(merged.code, 0) << merged.err;
  const json m = json::parse(read_file(c.dir.file("merged.json")));
  EXPECT_EQ(m["submission"]["skipped"], skipped);
  EXPECT_EQ(m["submission_summary"], sum);

  for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"run", "--submission", c.dir.file("sub"), "--kernel", c.dir.file("sub/RELU.cu")}, "--submission names the kernels: drop --kernel and --task-file"},
           {{"run", "--submission", c.dir.file("sub"), "--category", "scientific"}, ": no kernel of the selected tasks"},
           {{"check", "--submission", c.dir.file("nowhere")}, "--submission: no such folder: " + c.dir.file("nowhere")}}) {
    const Proc bad = c.run(args, CM_MSKB_BIN);
    EXPECT_EQ(bad.code, 2) << bad.err;
    EXPECT_NE(bad.err.find(message), std::string::npos) << bad.err;
  }
}

// Two --kernel files with the same name: each contender is named with its folder, so the lines
// and the report tell them apart; a file named like a shipped contender kind is still a candidate.
TEST(MskbCli, KernelsWithTheSameFileNameAreToldApartByTheirFolder) {
  Cli c;
  write_kernel(c, "a/softmax.cu", "// fake-eval: speed=2");
  write_kernel(c, "b/softmax.cu", "// fake-eval: wrong_result");
  write_kernel(c, "c/vendor.cu", "// fake-eval: speed=3");
  const Proc p = c.run({"check", "--task", "softmax", "--precision", "fp32", "-q", "--kernel", c.dir.file("a/softmax.cu"), "--kernel", c.dir.file("b/softmax.cu"),
                        "--kernel", c.dir.file("c/vendor.cu"), "--json", c.dir.file("check.json")},
                       CM_MSKB_BIN);
  EXPECT_EQ(p.code, 1) << p.err;
  EXPECT_NE(p.out.find("PASS softmax fp32 a/softmax: "), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("FAIL softmax fp32 b/softmax: "), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("PASS softmax fp32 candidate/vendor: "), std::string::npos) << "a user's vendor.cu is no vendor contender\n" << p.out;
  std::set<std::string> names;
  const json report = json::parse(read_file(c.dir.file("check.json")));
  for (const json& e : report["contenders"]) names.insert(e["contender"].get<std::string>());
  EXPECT_EQ(names, (std::set<std::string>{"a/softmax", "b/softmax", "candidate/vendor"}));
}

