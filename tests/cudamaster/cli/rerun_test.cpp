// Reproducible claims through the real mskb binary over the fake runner (MSKB_RUNNER, MSKB_NVCC;
// its timings are a function of the shape and the kernel's markers, so a rerun measures the same
// numbers): a `mskb run --json` report carries its "reproduce" record (golden keys), `mskb rerun`
// of it reproduces (exit 0), a doctored report's differences are named (exit 1), and a report
// that cannot be run again (kernel file missing or changed, no record) is one line and exit 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "mskb/core/random_shapes.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/harness/build_info.hpp"
#include "mskb/util/files.hpp"
#include "mskb/util/sha256.hpp"
#include "support/child_process.hpp"

using namespace cmtest;

namespace {

struct Cli : FakeCliDir {
  Proc mskb(const std::vector<std::string>& args) { return run_program(args, CM_MSKB_BIN); }
};

std::set<std::string> keys_of(const json& j) {
  std::set<std::string> out;
  for (auto it = j.begin(); it != j.end(); ++it) out.insert(it.key());
  return out;
}

std::size_t lines_in(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

// A user kernel for vector_add fp32 that the fake runner finds twice as fast as the baseline.
const char* kKernel = "// fake-eval: speed=2\nextern \"C\" void vector_add(const float* a, const float* b, float* c, int n) {}\n";

// `mskb run` of vector_add fp32 (baseline, vendor, k.cu) with shape seed 42 into `report`.
std::vector<std::string> run_args(const Cli& c, const std::string& report) {
  return {"run", "--task", "vector_add", "--precision", "fp32", "--kernel", c.dir.file("k.cu"), "--budget", "0.01", "--warmup", "0.05",
          "--noise", "0.01", "--shape-seed", "42", "-q", "--json", report};
}

json read_json(const std::string& path) { return json::parse(read_file(path)); }

void write_json_file(const std::string& path, const json& j) { std::ofstream(path) << j.dump(2); }

struct Run : ::testing::Test {
  Cli c;
  std::string report;
  void SetUp() override {
    write_file(c.dir.file("k.cu"), kKernel);
    report = c.dir.file("run.json");
    const Proc p = c.mskb(run_args(c, report));
    ASSERT_EQ(p.code, 0) << p.err;
  }
};

}  // namespace

// The record: golden keys at every level, the exact argv, the seed and the random shapes it
// draws, every kernel file with its SHA-256, the device without its UUID, the SM clocks seen.
TEST_F(Run, ReportCarriesWhatIsNeededToRunItAgain) {
  const json r = read_json(report);
  ASSERT_TRUE(r.contains("reproduce")) << r.dump(2).substr(0, 400);
  const json& rep = r["reproduce"];
  EXPECT_EQ(keys_of(rep), (std::set<std::string>{"format", "tool", "command", "argv", "cwd", "environment", "settings", "device", "sm_clock_mhz"}));
  EXPECT_EQ(rep["format"], 1);
  EXPECT_EQ(keys_of(rep["tool"]), (std::set<std::string>{"name", "version", "commit", "cuda", "default_arch"}));
  EXPECT_EQ(rep["tool"]["commit"], std::string(mskb::kGitCommit));
  EXPECT_EQ(rep["tool"]["version"], mskb::tool_version());
  EXPECT_EQ(rep["command"], "run");
  std::vector<std::string> argv = {CM_MSKB_BIN};
  for (const std::string& a : run_args(c, report)) argv.push_back(a);
  EXPECT_EQ(rep["argv"], json(argv));
  EXPECT_EQ(rep["environment"]["MSKB_RUNNER"], CM_FAKE_RUNNER);
  const json& s = rep["settings"];
  EXPECT_EQ(keys_of(s), (std::set<std::string>{"tasks", "precisions", "skip_missing_precisions", "contenders", "kernels", "check_only", "sanitizer",
                                               "sanitize_gate", "sweeps", "shape_seed", "random_shape_count", "random_shapes", "seeds", "timing",
                                               "policy", "call_timeout_s", "call_timeout_scale", "compile", "checks_per_gpu", "timing_overlap",
                                               "gpus", "build_jobs", "skip_done", "files", "submission", "task_files", "matrix",
                                               "custom_shapes"}));
  EXPECT_EQ(s["tasks"], json({"vector_add"}));
  EXPECT_EQ(s["precisions"], json({"fp32"}));
  EXPECT_EQ(s["contenders"], json({"baseline", "vendor"}));
  EXPECT_EQ(s["kernels"], json({std::filesystem::path(c.dir.file("k.cu")).lexically_normal().string()}));
  EXPECT_EQ(s["sweeps"]["timed"], json({"paper"}));
  EXPECT_EQ(s["shape_seed"], 42);
  EXPECT_EQ(r["shape_seed"], 42);
  // The random shapes are those the seed draws (and their count is the report's).
  json drawn = json::array();
  for (const mskb::Shape& shape : mskb::random_shapes(mskb::get_task("vector_add"), 42, 2)) drawn.push_back(shape.str());
  EXPECT_EQ(s["random_shape_count"], 2);
  EXPECT_EQ(s["random_shapes"]["vector_add"], drawn);
  EXPECT_EQ(s["seeds"]["per_shape"], 3);
  EXPECT_DOUBLE_EQ(s["timing"]["max_time_s"].get<double>(), 0.01);
  EXPECT_DOUBLE_EQ(s["timing"]["warmup_s"].get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(s["timing"]["target_noise"].get<double>(), 0.01);
  EXPECT_EQ(s["compile"]["allow_libraries"], false);
  // --checks-per-gpu and --timing-overlap auto: the values the run used (the checks from this
  // host; the overlap 1, a user kernel being in the run), so a rerun elsewhere runs alike.
  EXPECT_EQ(s["checks_per_gpu"], r["device"]["checks_per_gpu"]);
  EXPECT_GE(s["checks_per_gpu"].get<int>(), 1);
  EXPECT_EQ(s["timing_overlap"], 1);
  // Every judged kernel file, hashed; the user's among them.
  std::set<std::string> contenders;
  for (const json& f : s["files"]) {
    contenders.insert(f["contender"].get<std::string>());
    ASSERT_TRUE(f["sha256"].is_string()) << f.dump();
    EXPECT_EQ(f["sha256"], mskb::sha256_hex(read_file(f["path"].get<std::string>()))) << f.dump();
    EXPECT_EQ(f["shipped"], f["contender"] != "k") << f.dump();
  }
  EXPECT_EQ(contenders, (std::set<std::string>{"baseline", "vendor", "k"}));
  EXPECT_TRUE(s["submission"].is_null());
  EXPECT_TRUE(s["matrix"].is_null());
  // The device's identity and ceilings, not its UUID; the SM clocks of the timed shapes.
  EXPECT_EQ(rep["device"]["name"], "Fake H200");
  EXPECT_EQ(rep["device"]["sms"], 132);
  EXPECT_FALSE(rep["device"].contains("uuid"));
  EXPECT_EQ(rep.dump().find("GPU-fake-agents-0001"), std::string::npos) << "no UUID in the record";
  EXPECT_EQ(keys_of(rep["sm_clock_mhz"]), (std::set<std::string>{"min", "median", "max", "shapes"}));
  EXPECT_EQ(rep["sm_clock_mhz"]["median"], 1980.0);
  EXPECT_EQ(rep["sm_clock_mhz"]["shapes"], r["results"].size());

  // A check report: command check, no timing, no clocks.
  const Proc chk = c.mskb({"check", "--task", "vector_add", "--precision", "fp32", "-q", "--json", c.dir.file("check.json")});
  ASSERT_EQ(chk.code, 0) << chk.err;
  const json cr = read_json(c.dir.file("check.json"))["reproduce"];
  EXPECT_EQ(cr["command"], "check");
  EXPECT_EQ(cr["settings"]["check_only"], true);
  EXPECT_EQ(cr["settings"]["sweeps"]["timed"], json::array());
  EXPECT_TRUE(cr["sm_clock_mhz"].is_null());
}

// The same run again: every entry within its interval (the spread model, between processes: the
// same GPU), the same random shapes, the comparison in the new report, Markdown and HTML written.
TEST_F(Run, RerunOfAnUnchangedReportReproduces) {
  const Proc p = c.mskb({"rerun", report, "-q", "--json", c.dir.file("new.json"), "--markdown", c.dir.file("rerun.md"), "--html",
                         c.dir.file("rerun.html")});
  ASSERT_EQ(p.code, 0) << p.out << p.err;
  EXPECT_NE(p.out.find("reproduced 3 of 3 entries within their intervals (correctness, median times and P; spread model v"), std::string::npos)
      << p.out;
  EXPECT_NE(p.out.find("between processes"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("0 of 5 checks outside"), std::string::npos) << p.out;  // time for each, P for vendor and k
  EXPECT_NE(p.out.find("mskb rerun: the report (commit "), std::string::npos) << p.out;  // both runs' commits named
  EXPECT_NE(p.out.find(") run again (commit "), std::string::npos) << p.out;
  EXPECT_EQ(p.out.find("DIFFERS"), std::string::npos) << p.out;
  EXPECT_EQ(p.out.find("WARNING"), std::string::npos) << p.out;
  EXPECT_EQ(p.out.find("launch floor ("), std::string::npos) << p.out;  // the same machine: no note
  const json fresh = read_json(c.dir.file("new.json"));
  const json& cmp = fresh["rerun_of"]["comparison"];
  EXPECT_EQ(cmp["summary"]["reproduced"], 3) << cmp["summary"];
  EXPECT_EQ(cmp["summary"]["outside"], 0);
  EXPECT_EQ(cmp["summary"]["consistent"], true);
  EXPECT_EQ(cmp["scope"], "between_process");
  EXPECT_EQ(cmp["judge"]["kind"], "model");
  EXPECT_EQ(cmp["random_shapes_differ"], json::array());
  for (const json& e : cmp["entries"]) {
    ASSERT_EQ(e["sweeps"].size(), 1u) << e.dump();
    EXPECT_DOUBLE_EQ(e["sweeps"][0]["time_ratio"].get<double>(), 1.0) << e.dump();
    EXPECT_DOUBLE_EQ(e["sweeps"][0]["P_ratio"].get<double>(), 1.0) << e.dump();
    EXPECT_GE(e["sweeps"][0]["shapes"].get<int>(), 3) << e.dump();
  }
  // The rerun ran the same plan: the same settings (the command line is the rerun's own).
  const json old = read_json(report);
  json a = old["reproduce"]["settings"], b = fresh["reproduce"]["settings"];
  EXPECT_EQ(a, b);
  EXPECT_EQ(fresh["reproduce"]["argv"][1], "rerun");
  EXPECT_EQ(fresh["shape_seed"], 42);
  EXPECT_EQ(fresh["contenders"].size(), old["contenders"].size());
  const std::string md = read_file(c.dir.file("rerun.md"));
  EXPECT_NE(md.find("**reproduced 3 of 3 entries within their intervals"), std::string::npos) << md;
  EXPECT_NE(md.find("## mskb compare: report vs rerun"), std::string::npos) << md;
  const std::string html = read_file(c.dir.file("rerun.html"));
  EXPECT_EQ(html.rfind("<!doctype html>", 0), 0u);
  EXPECT_NE(html.find("<h2>Reproduction</h2>"), std::string::npos);
  // The new report can be rerun in turn.
  const Proc again = c.mskb({"rerun", c.dir.file("new.json"), "-q"});
  EXPECT_EQ(again.code, 0) << again.out << again.err;
}

// A report whose times were doubled: every entry's time is named, with the ratio, outside its
// interval; three of five checks is more than chance explains (exit 1); a flat tolerance wide
// enough accepts them. A correctness the rerun does not see, and another GPU model, too.
TEST_F(Run, DoctoredReportDiffersAndTheDifferencesAreNamed) {
  json doctored = read_json(report);
  for (json& r : doctored["results"])
    for (const char* k : {"median", "min", "max"}) r["time_us"][k] = r["time_us"][k].get<double>() * 2;
  write_json_file(c.dir.file("x2.json"), doctored);
  const Proc p = c.mskb({"rerun", c.dir.file("x2.json"), "-q"});
  EXPECT_EQ(p.code, 1) << p.out << p.err;
  for (const char* who : {"baseline", "vendor", "k"})
    EXPECT_NE(p.out.find(std::string("differs: vector_add fp32 ") + who + ": paper: median time x0.5 the report's"), std::string::npos)
        << who << "\n" << p.out;
  EXPECT_NE(p.out.find("reproduced 0 of 3 entries within their intervals"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("3 of 5 checks outside, "), std::string::npos) << p.out;
  EXPECT_NE(p.out.find(" expected by chance, more than chance explains (up to 2)"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("the report's (geometric mean over"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("the whole run: call time x0.500 over "), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("outside its bound +-"), std::string::npos) << p.out;
  EXPECT_EQ(p.out.find(": P "), std::string::npos) << "P is a ratio of two doubled times: unchanged\n" << p.out;
  const Proc wide = c.mskb({"rerun", c.dir.file("x2.json"), "-q", "--tolerance", "0.6"});
  EXPECT_EQ(wide.code, 0) << wide.out << wide.err;
  EXPECT_NE(wide.out.find("reproduced 3 of 3 entries within 60%"), std::string::npos) << wide.out;

  // The kernel was wrong in the report (it is correct now), P of the vendor was 3, and the report
  // came from another GPU model.
  json other = read_json(report);
  for (json& e : other["contenders"])
    if (e["contender"] == "k") e["disposition"] = "wrong_result";
  for (json& s : other["scores"])
    if (s["contender"] == "vendor") s["P"] = 3.0;
  other["device"]["name"] = "Fake H100";
  write_json_file(c.dir.file("other.json"), other);
  const Proc q = c.mskb({"rerun", c.dir.file("other.json"), "-q", "--json", c.dir.file("other_new.json")});
  EXPECT_EQ(q.code, 1) << q.out << q.err;
  EXPECT_NE(q.out.find("WARNING: different GPU model: the report ran on Fake H100, this rerun on Fake H200"), std::string::npos) << q.out;
  EXPECT_NE(q.out.find("differs: vector_add fp32 k: correct in the rerun (passed), not in the report (wrong_result"), std::string::npos) << q.out;
  EXPECT_NE(q.out.find("differs: vector_add fp32 vendor: paper: P 3.00 -> 1.00 (x0.333)"), std::string::npos) << q.out;
  EXPECT_EQ(q.out.find("differs: vector_add fp32 baseline"), std::string::npos) << q.out;
  EXPECT_NE(q.out.find("reproduced 1 of 3 entries within their intervals"), std::string::npos) << q.out;
  EXPECT_NE(q.out.find("1 with another correctness or disposition"), std::string::npos) << q.out;
  // --tolerance: the flat check of before.
  const Proc flat = c.mskb({"rerun", c.dir.file("other.json"), "-q", "--tolerance", "0.1"});
  EXPECT_EQ(flat.code, 1) << flat.out << flat.err;
  EXPECT_NE(flat.out.find("reproduced 1 of 3 entries within 10% (correctness, median times and P); 2 differ"), std::string::npos) << flat.out;
  const json cmp = read_json(c.dir.file("other_new.json"))["rerun_of"]["comparison"];
  EXPECT_EQ(cmp["same_gpu_model"], false);
  EXPECT_EQ(cmp["summary"]["differ"], 2);
}

// --against: a rerun saved earlier is judged again without running (the same verdict); one whose
// times moved is judged by them; a report of another record (another shape seed) is refused.
TEST_F(Run, AgainstASavedRerunJudgesItWithoutRunning) {
  ASSERT_EQ(c.mskb({"rerun", report, "-q", "--json", c.dir.file("new.json")}).code, 0);
  Proc p = c.mskb({"rerun", report, "-q", "--against", c.dir.file("new.json"), "--json", c.dir.file("judged.json")});
  ASSERT_EQ(p.code, 0) << p.out << p.err;
  EXPECT_NE(p.out.find("reproduced 3 of 3 entries within their intervals"), std::string::npos) << p.out;
  const json judged = read_json(c.dir.file("judged.json"));
  EXPECT_EQ(judged["results"], read_json(c.dir.file("new.json"))["results"]);  // the saved numbers, not new ones
  EXPECT_EQ(judged["rerun_of"]["report"], report);
  EXPECT_EQ(judged["rerun_of"]["comparison"]["summary"]["reproduced"], 3);

  json slow = read_json(c.dir.file("new.json"));
  for (json& r : slow["results"])
    for (const char* k : {"median", "min", "max"}) r["time_us"][k] = r["time_us"][k].get<double>() * 1.5;
  write_json_file(c.dir.file("slow.json"), slow);
  p = c.mskb({"rerun", report, "-q", "--against", c.dir.file("slow.json")});
  EXPECT_EQ(p.code, 1) << p.out << p.err;
  EXPECT_NE(p.out.find("differs: vector_add fp32 baseline: paper: median time x1.5 the report's"), std::string::npos) << p.out;

  std::vector<std::string> other = run_args(c, c.dir.file("seed7.json"));
  *std::find(other.begin(), other.end(), "42") = "7";
  ASSERT_EQ(c.mskb(other).code, 0);
  p = c.mskb({"rerun", report, "-q", "--against", c.dir.file("seed7.json")});
  EXPECT_EQ(p.code, 2) << p.out << p.err;
  EXPECT_NE(p.err.find("is not a run of " + report + "'s record: the settings differ (first: \""), std::string::npos) << p.err;
  EXPECT_EQ(lines_in(p.err), 1u) << p.err;
  p = c.mskb({"rerun", report, "-q", "--against", c.dir.file("missing.json")});
  EXPECT_EQ(p.code, 2) << p.err;
}

// The committed H200 claim (the paper sweep at 4aae2a5) and its reruns on two later leases (95e7abb
// and ce8172d, other GPUs, each host's call path slower than the claim's: x1.067 and x1.088 as a
// whole), judged by the compiled spread model: correctness the same for all 182 entries, each
// entry's time judged beside the run's shift at its time scales, the commits of both runs named. On
// the first every entry reproduces; on the second all but the prefix_sum bf16 baseline, whose call
// time moved x1.83 with its device time x1.02: the host side of its calls, said as such.
TEST(Rerun, TheCommittedH200ClaimAndItsRerunsOnOtherLeases) {
  Cli c;
  Proc p = c.mskb({"rerun", CM_H200_CLAIM, "-q", "--against", CM_H200_RERUN, "--json", c.dir.file("judged.json")});
  EXPECT_EQ(p.code, 0) << p.out.substr(p.out.size() > 3000 ? p.out.size() - 3000 : 0) << p.err;
  EXPECT_NE(p.out.find("the report was made by mskb commit 4aae2a5cb5c6 (stamp), this rerun by commit 95e7abbcaf9d"), std::string::npos)
      << p.out.substr(0, 2000);
  json cmp = read_json(c.dir.file("judged.json"))["rerun_of"]["comparison"];
  EXPECT_EQ(cmp["scope"], "between_lease");
  EXPECT_EQ(cmp["summary"]["entries"], 182);
  EXPECT_EQ(cmp["summary"]["reproduced"], 182) << cmp["summary"];
  EXPECT_EQ(cmp["summary"]["hard"], 0);  // correctness and dispositions identical
  EXPECT_EQ(cmp["summary"]["consistent"], true) << cmp["summary"];
  EXPECT_LE(cmp["summary"]["outside"].get<int>(), cmp["summary"]["allowed_outside"].get<int>());
  EXPECT_EQ(cmp["only_old"].size(), 0u);
  EXPECT_EQ(cmp["only_new"].size(), 0u);
  EXPECT_NE(p.out.find("reproduced 182 of 182 entries ("), std::string::npos) << p.out.substr(p.out.size() > 1000 ? p.out.size() - 1000 : 0);
  EXPECT_EQ(p.out.find("DIFFERS"), std::string::npos);
  // What moved as a whole: the host (the launch floor and call times together), not the kernels.
  EXPECT_NEAR(cmp["shift"]["call_ratio"].get<double>(), 1.067, 0.001) << cmp["shift"];
  EXPECT_NEAR(cmp["shift"]["device_ratio"].get<double>(), 1.010, 0.001) << cmp["shift"];
  EXPECT_EQ(cmp["shift"]["shapes"], 1426);
  EXPECT_NEAR(cmp["shift"]["bands"][0]["call_ratio"].get<double>(), 1.096, 0.001) << cmp["shift"];  // < 15 us: launch-bound calls most
  // P on device time, shown beside the verdict: every non-baseline entry has one in both runs, and
  // (at q = 0.9) about nine in ten fall in the report's device-time interval.
  EXPECT_EQ(cmp["summary"]["device_P"]["checked"], 82) << cmp["summary"];
  EXPECT_GE(cmp["summary"]["device_P"]["within"].get<int>(), 74) << cmp["summary"];
  EXPECT_NE(p.out.find("P on device time: "), std::string::npos);
  EXPECT_NE(p.out.find("the whole run: call time x1.067 over 1426 shapes, device time x1.010 over 1426"), std::string::npos);
  EXPECT_NE(p.out.find("launch floor (one empty kernel launched and synchronized, mskb device): 10.82 us in the report, 11.58 us in the "
                       "rerun (x1.071)"),
            std::string::npos);

  p = c.mskb({"rerun", CM_H200_CLAIM, "-q", "--against", CM_H200_RERUN_2, "--json", c.dir.file("judged2.json")});
  EXPECT_EQ(p.code, 0) << p.out.substr(p.out.size() > 3000 ? p.out.size() - 3000 : 0) << p.err;
  EXPECT_NE(p.out.find("this rerun by commit ce8172d4bae9 (stamp)"), std::string::npos) << p.out.substr(0, 2000);
  EXPECT_NE(p.out.find("reproduced 181 of 182 entries ("), std::string::npos) << p.out.substr(p.out.size() > 1000 ? p.out.size() - 1000 : 0);
  EXPECT_NE(p.out.find("; 1 where only the host side moved"), std::string::npos);
  EXPECT_NE(p.out.find("host moved: prefix_sum bf16 baseline: paper: median time x1.83 the report's"), std::string::npos);
  EXPECT_NE(p.out.find("the whole run's call time is outside the model's run-wide bound"), std::string::npos);
  EXPECT_EQ(p.out.find("DIFFERS"), std::string::npos);
  cmp = read_json(c.dir.file("judged2.json"))["rerun_of"]["comparison"];
  EXPECT_EQ(cmp["summary"]["differ"], 0);
  EXPECT_EQ(cmp["summary"]["host_moved"], 1);
  EXPECT_EQ(cmp["summary"]["hard"], 0);
  EXPECT_FALSE(cmp["summary"]["run_differs"].get<bool>());
  EXPECT_LE(cmp["summary"]["outside"].get<int>(), cmp["summary"]["allowed_outside"].get<int>());
}

// The claim of the eight tasks whose baselines keep their scratch (353066b, both sweeps) and its rerun
// on a later lease (273bbac, another GPU): every entry reproduced, the commits of both named. The
// paper run's host was faster as a whole (launch floor 11.33 -> 9.15 us; call time x0.898, device time
// x0.991): named, and not held against the entries, which are judged beside that shift; the one entry
// outside its interval (the sorting bf16 baseline, call x0.68 at device x1.03) is within chance.
TEST(Rerun, TheEightTaskClaimReproducesOnALaterLease) {
  Cli c;
  auto with_sweep = [](std::string path, const std::string& sweep) { return path.replace(path.find("SWEEP"), 5, sweep); };
  for (const std::string sweep : {"paper", "large"}) {
    SCOPED_TRACE(sweep);
    const std::string judged = c.dir.file("judged_8_" + sweep + ".json");
    Proc p = c.mskb({"rerun", with_sweep(CM_H200_CLAIM_8, sweep), "-q", "--against", with_sweep(CM_H200_RERUN_8, sweep), "--json", judged});
    EXPECT_EQ(p.code, 0) << p.out.substr(p.out.size() > 3000 ? p.out.size() - 3000 : 0) << p.err;
    EXPECT_NE(p.out.find("the report was made by mskb commit 353066bdb79d (stamp), this rerun by commit 273bbac71cfd (stamp)"),
              std::string::npos)
        << p.out.substr(0, 2000);
    EXPECT_NE(p.out.find("reproduced 32 of 32 entries"), std::string::npos) << p.out.substr(p.out.size() > 1000 ? p.out.size() - 1000 : 0);
    EXPECT_EQ(p.out.find("DIFFERS"), std::string::npos);
    const json cmp = read_json(judged)["rerun_of"]["comparison"];
    EXPECT_EQ(cmp["summary"]["entries"], 32);
    EXPECT_EQ(cmp["summary"]["reproduced"], 32) << cmp["summary"];
    EXPECT_EQ(cmp["summary"]["hard"], 0);
    EXPECT_EQ(cmp["summary"]["differ"], 0);
    EXPECT_EQ(cmp["summary"]["host_moved"], 0);
    EXPECT_LE(cmp["summary"]["outside"].get<int>(), cmp["summary"]["allowed_outside"].get<int>());
    EXPECT_EQ(cmp["summary"]["device_P"]["checked"], 16) << cmp["summary"];
    EXPECT_EQ(cmp["summary"]["device_P"]["within"], 15) << cmp["summary"];
    EXPECT_NE(p.out.find("launch floor (one empty kernel launched and synchronized, mskb device): 11.33 us in the report, 9.15 us in the "
                         "rerun (x0.808)"),
              std::string::npos);
    if (sweep == "paper") {
      EXPECT_NEAR(cmp["shift"]["call_ratio"].get<double>(), 0.898, 0.001) << cmp["shift"];
      EXPECT_NEAR(cmp["shift"]["device_ratio"].get<double>(), 0.991, 0.001) << cmp["shift"];
      EXPECT_NE(p.out.find("the whole run's call time is outside the model's run-wide bound"), std::string::npos);
      EXPECT_NE(p.out.find("outside by chance: sorting bf16 baseline: paper: device time x1.03"), std::string::npos);
    } else {
      EXPECT_EQ(cmp["summary"]["outside"], 0) << cmp["summary"];
    }
  }
}

// What cannot be run again: one line on stderr, exit 2.
TEST_F(Run, AReportThatCannotBeRunAgainIsOneLineAndExitTwo) {
  // The kernel file changed: refused, unless --allow-changed (then named as a warning).
  write_file(c.dir.file("k.cu"), std::string(kKernel) + "// edited\n");
  Proc p = c.mskb({"rerun", report, "-q"});
  EXPECT_EQ(p.code, 2) << p.out << p.err;
  EXPECT_EQ(lines_in(p.err), 1u) << p.err;
  EXPECT_NE(p.err.find("k.cu (vector_add fp32 k): changed since the report (sha256 "), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("--allow-changed runs it anyway"), std::string::npos) << p.err;
  EXPECT_TRUE(p.out.empty()) << p.out;
  p = c.mskb({"rerun", report, "-q", "--allow-changed"});
  EXPECT_EQ(p.code, 0) << p.out << p.err;
  EXPECT_NE(p.err.find("mskb rerun: warning: "), std::string::npos) << p.err;
  // The kernel file is gone: refused even with --allow-changed.
  std::filesystem::remove(c.dir.file("k.cu"));
  for (const bool allow : {false, true}) {
    std::vector<std::string> args = {"rerun", report, "-q"};
    if (allow) args.push_back("--allow-changed");
    p = c.mskb(args);
    EXPECT_EQ(p.code, 2) << p.out << p.err;
    EXPECT_EQ(lines_in(p.err), 1u) << p.err;
    EXPECT_NE(p.err.find("k.cu (vector_add fp32 k) is missing; the report's run cannot be run again"), std::string::npos) << p.err;
  }
  // No record: an old report, and a merged one.
  json old = read_json(report);
  old.erase("reproduce");
  write_json_file(c.dir.file("old.json"), old);
  p = c.mskb({"rerun", c.dir.file("old.json")});
  EXPECT_EQ(p.code, 2) << p.out << p.err;
  EXPECT_EQ(lines_in(p.err), 1u) << p.err;
  EXPECT_NE(p.err.find("old.json cannot be run again: it has no \"reproduce\" record"), std::string::npos) << p.err;
  ASSERT_EQ(c.mskb({"merge", report, "--json", c.dir.file("merged.json")}).code, 0);
  p = c.mskb({"rerun", c.dir.file("merged.json")});
  EXPECT_EQ(p.code, 2) << p.err;
  EXPECT_NE(p.err.find("has no \"reproduce\" record"), std::string::npos) << p.err;
  // Not a report; a record of a newer format; a bad tolerance.
  write_file(c.dir.file("x.json"), "{\"a\": 1}");
  p = c.mskb({"rerun", c.dir.file("x.json")});
  EXPECT_EQ(p.code, 2);
  EXPECT_NE(p.err.find("it is not an mskb run/check JSON report"), std::string::npos) << p.err;
  json future = read_json(report);
  future["reproduce"]["format"] = 2;
  write_json_file(c.dir.file("future.json"), future);
  p = c.mskb({"rerun", c.dir.file("future.json")});
  EXPECT_EQ(p.code, 2);
  EXPECT_NE(p.err.find("of format 2 and this mskb reads format 1"), std::string::npos) << p.err;
  p = c.mskb({"rerun", report, "-q", "--json", report});
  EXPECT_EQ(p.code, 2);
  EXPECT_NE(p.err.find("is the report itself: write the rerun to another file"), std::string::npos) << p.err;
  EXPECT_EQ(read_json(report)["reproduce"]["format"], 1) << "the report is left as it was";
  p = c.mskb({"rerun", report, "--tolerance", "0"});
  EXPECT_EQ(p.code, 2);
  EXPECT_EQ(lines_in(p.err), 1u) << p.err;
  p = c.mskb({"rerun", c.dir.file("nope.json")});
  EXPECT_EQ(p.code, 2);
  EXPECT_EQ(lines_in(p.err), 1u) << p.err;
}

// A user's task (task file): the record names the file and its reference with their SHA-256; the
// rerun registers the task again and reproduces; an edited reference is refused until allowed.
TEST(Rerun, TaskFileRunIsRunAgainAndItsFilesAreChecked) {
  Cli c;
  std::filesystem::copy(mskb::source_root() + "/examples/bias_gelu", c.dir.file("tf"), std::filesystem::copy_options::recursive);
  const std::string report = c.dir.file("t.json");
  const Proc run = c.mskb({"run", "--task-file", c.dir.file("tf/task.toml"), "--precision", "fp32", "--budget", "0.01", "-q", "--json", report});
  ASSERT_EQ(run.code, 0) << run.err;
  const json tf = read_json(report)["reproduce"]["settings"]["task_files"];
  ASSERT_EQ(tf.size(), 1u) << tf.dump();
  EXPECT_EQ(tf[0]["task"], "bias_gelu");
  EXPECT_EQ(tf[0]["sha256"], mskb::sha256_hex(read_file(c.dir.file("tf/task.toml"))));
  EXPECT_EQ(tf[0]["reference"]["sha256"], mskb::sha256_hex(read_file(c.dir.file("tf/ref.cpp"))));
  Proc p = c.mskb({"rerun", report, "-q"});
  EXPECT_EQ(p.code, 0) << p.out << p.err;
  EXPECT_NE(p.out.find("bias_gelu"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("reproduced 1 of 1 entries within their intervals"), std::string::npos) << p.out;
  std::ofstream(c.dir.file("tf/ref.cpp"), std::ios::app) << "// edited\n";
  p = c.mskb({"rerun", report, "-q"});
  EXPECT_EQ(p.code, 2) << p.out << p.err;
  EXPECT_EQ(lines_in(p.err), 1u) << p.err;
  EXPECT_NE(p.err.find("ref.cpp (reference of bias_gelu): changed since the report"), std::string::npos) << p.err;
  p = c.mskb({"rerun", report, "-q", "--allow-changed"});
  EXPECT_EQ(p.code, 0) << p.out << p.err;
}
