// Progress on stderr through the real binaries (mskb over the fake runner, cudamaster over a
// replayed story): MSKB_PROGRESS=live draws the live line (done/total, phase, items in flight,
// elapsed, ETA) with the result lines above it and leaves a clean line; stderr that is not a
// terminal (a file here) gets today's plain lines, no carriage return, no escape code. mskb build
// prints one [n/total] line per kernel, each in a log as soon as its build ends.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "support/agent_doubles.hpp"
#include "support/child_process.hpp"

using namespace cmtest;

namespace {

struct Cli : FakeCliDir {
  Cli() { drop.push_back("MSKB_PROGRESS"); }
  Proc run(const std::vector<std::string>& args, const std::string& program) { return run_program(args, program); }
};

const std::string kClear = "\033[K";

// The end of a live stream: the live line cleared ("\r" + clear), nothing drawn after it.
void expect_clean_end(const std::string& err) {
  const auto last = err.rfind('\r');
  ASSERT_NE(last, std::string::npos) << err;
  EXPECT_EQ(err.compare(last, 1 + kClear.size(), "\r" + kClear), 0) << err.substr(last);
  EXPECT_EQ(err.find('\033', last + 1 + kClear.size()), std::string::npos) << err.substr(last);
}

void expect_plain(const std::string& err) {
  EXPECT_EQ(err.find('\r'), std::string::npos) << err;
  EXPECT_EQ(err.find('\033'), std::string::npos) << err;
}

TEST(Progress, MskbRunDrawsTheLiveLineWhenAskedAndPlainLinesInALog) {
  Cli c;
  c.env["FAKE_RUNNER_SLEEP_MS"] = "1100";  // each contender takes a while: the ETA has a rate
  // One pass (--checks-per-gpu auto would depend on the host; the two-phase lines are tested below).
  const std::vector<std::string> args = {"run", "--task", "spmv_csr", "--precision", "fp32", "--budget", "0.01", "--checks-per-gpu", "1"};

  c.env["MSKB_PROGRESS"] = "live";
  const Proc live = c.run(args, CM_MSKB_BIN);
  ASSERT_EQ(live.code, 0) << live.err;
  // In flight: the contender without its "[  1/2] " label, then the next one with the first counted and an ETA.
  EXPECT_NE(live.err.find("\r[0/2] run  spmv_csr fp32 baseline: evaluating  elapsed "), std::string::npos) << live.err;
  EXPECT_TRUE(std::regex_search(live.err, std::regex("\r\\[1/2\\] run  spmv_csr fp32 vendor: evaluating  elapsed \\d\\d:\\d\\d  ETA \\d\\d:\\d\\d\x1b\\[K")))
      << live.err;
  // The result lines above the live line: the line cleared first, the result on its own line.
  EXPECT_NE(live.err.find("\r" + kClear + "[  1/2] spmv_csr fp32 baseline: passed ("), std::string::npos) << live.err;
  EXPECT_NE(live.err.find("\r" + kClear + "[  2/2] spmv_csr fp32 vendor: passed ("), std::string::npos) << live.err;
  expect_clean_end(live.err);
  EXPECT_EQ(live.out.find('\r'), std::string::npos) << "the table on stdout is untouched";

  c.env.erase("MSKB_PROGRESS");  // stderr is a file: plain
  const Proc plain = c.run(args, CM_MSKB_BIN);
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_NE(plain.err.find("[  1/2] spmv_csr fp32 baseline: passed ("), std::string::npos) << plain.err;
  EXPECT_NE(plain.err.find("[  2/2] spmv_csr fp32 vendor: passed ("), std::string::npos) << plain.err;
  expect_plain(plain.err);

  c.env["MSKB_PROGRESS"] = "plain";
  c.env["FAKE_RUNNER_SLEEP_MS"] = "0";
  const Proc forced = c.run({"check", "--task", "spmv_csr", "--precision", "fp32"}, CM_MSKB_BIN);
  ASSERT_EQ(forced.code, 0) << forced.err;
  EXPECT_NE(forced.err.find("[  1/2] spmv_csr fp32 baseline: passed ("), std::string::npos) << forced.err;
  expect_plain(forced.err);
}

// A two-phase run (--checks-per-gpu > 1): each phase counts its own items from 0.
TEST(Progress, TwoPhaseRunCountsEachPhase) {
  Cli c;
  c.env["MSKB_PROGRESS"] = "live";
  const Proc p = c.run({"run", "--task", "spmv_csr", "--precision", "fp32", "--budget", "0.01", "--checks-per-gpu", "3"}, CM_MSKB_BIN);
  ASSERT_EQ(p.code, 0) << p.err;
  const auto checks = p.err.find("\r[0/2] phase 1/2: checks  "), timing = p.err.find("\r[0/2] phase 2/2: timing  ");
  ASSERT_NE(checks, std::string::npos) << p.err;
  ASSERT_NE(timing, std::string::npos) << p.err;
  EXPECT_LT(checks, timing);
  EXPECT_NE(p.err.find("[2/2] phase 1/2: checks  "), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("[2/2] phase 2/2: timing  "), std::string::npos) << p.err;
  expect_clean_end(p.err);
}

// cudamaster optimize: a job's stages (references, then each round) are the units counted.
TEST(Progress, OptimizeCountsJobStages) {
  Cli c;
  const std::string cassette = record_story(c.dir.file("story.jsonl"));
  std::vector<std::string> args = {"optimize", "--task", "spmv_csr", "--llm", "replay:" + cassette, "--rounds", "2", "--profile", "none",
                                   "--db", c.db(), "--out", c.dir.file("out")};
  c.env["MSKB_PROGRESS"] = "live";
  const Proc live = c.run(args, CM_CUDAMASTER_BIN);
  ASSERT_EQ(live.code, 0) << live.err;
  EXPECT_NE(live.err.find("\r[0/3] rounds  spmv_csr fp32 baseline/vendor  elapsed "), std::string::npos) << live.err;
  EXPECT_TRUE(std::regex_search(live.err, std::regex("\r\\[1/3\\] rounds  spmv_csr fp32 round 1/2  elapsed \\d\\d:\\d\\d  ETA \\d\\d:\\d\\d")))
      << live.err;
  EXPECT_NE(live.err.find("\r[2/3] rounds  spmv_csr fp32 round 2/2  elapsed "), std::string::npos) << live.err;
  EXPECT_NE(live.err.find("\r[3/3] rounds  elapsed "), std::string::npos) << live.err;
  EXPECT_NE(live.err.find("\r" + kClear + "[spmv_csr fp32] round 1: coder: compile_error"), std::string::npos) << live.err;
  // The summary after the run: plain, below the cleared live line.
  const auto summary = live.err.find("best kernels and summary.json in");
  ASSERT_NE(summary, std::string::npos) << live.err;
  EXPECT_EQ(live.err.find('\r', summary), std::string::npos) << live.err.substr(summary);

  c.env.erase("MSKB_PROGRESS");
  args[args.size() - 3] = c.dir.file("runs2.db");
  args.back() = c.dir.file("out2");
  const Proc plain = c.run(args, CM_CUDAMASTER_BIN);
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_NE(plain.err.find("\n[spmv_csr fp32] round 1: coder: compile_error"), std::string::npos) << plain.err;
  expect_plain(plain.err);
}

// Two kernel files the fake nvcc builds (FAKE_NVCC_SLEEP seconds each); their texts differ, or the
// second would be the first's cache hit.
std::vector<std::string> two_kernels(Cli& c) {
  std::vector<std::string> files;
  for (const std::string name : {"a_kernel", "b_kernel"}) {
    files.push_back(c.dir.file(name + ".cu"));
    std::ofstream(files.back()) << "// " << name << "\nextern \"C\" void vector_add(const float*, const float*, float*, int) {}\n";
  }
  return files;
}

// `mskb build` into a log (stdout a file, as `mskb build > out` or setup.sh's log): each kernel's
// line is there as soon as its build ends, while the next one still builds; one line per kernel
// with its [n/total], then the count; no carriage return, no escape code.
TEST(Progress, MskbBuildWritesEachKernelsLineToALogAsItEnds) {
  Cli c;
  c.env["FAKE_NVCC_SLEEP"] = "2";
  c.env["FAKE_NVCC_EXPORTS"] = "extern-c";  // the fake exports vector_add, so the entry check passes
  const std::vector<std::string> k = two_kernels(c);
  const pid_t pid = spawn({"build", "--kernel", k[0], "--kernel", k[1], "-j", "1"}, c.env, c.dir.file(""), "log", CM_MSKB_BIN, c.drop);
  bool running_at_first_line = false, seen = false, ended = false;
  int status = 0;
  for (int i = 0; i < 400 && !seen && !ended; ++i) {  // up to 20 s
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    seen = read_file(c.dir.file("log.out")).find("[1/2] ok   ") != std::string::npos;
    ended = ::waitpid(pid, &status, WNOHANG) == pid;  // after the read: a line seen before the end was there before it
    running_at_first_line = seen && !ended;
  }
  if (!ended) {
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  }
  const Proc p{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), read_file(c.dir.file("log.out")),
               read_file(c.dir.file("log.err"))};
  ASSERT_EQ(p.code, 0) << p.out << p.err;
  EXPECT_TRUE(seen) << "no kernel line in the log before mskb ended (or after 20 s)\n" << p.out;
  EXPECT_TRUE(running_at_first_line) << "the first kernel's line came only when mskb ended (stdout held in a buffer)\n" << p.out;
  EXPECT_EQ(p.out.rfind("kernels for sm_", 0), 0u) << p.out;
  EXPECT_NE(p.out.find(": 2 to build\n"), std::string::npos) << p.out;
  EXPECT_TRUE(std::regex_search(p.out, std::regex("\n\\[1/2\\] ok   \\S+/[ab]_kernel\\.cu \\(\\d+\\.\\d s\\)\n"))) << p.out;
  EXPECT_TRUE(std::regex_search(p.out, std::regex("\n\\[2/2\\] ok   \\S+/[ab]_kernel\\.cu \\(\\d+\\.\\d s\\)\n"))) << p.out;
  EXPECT_NE(p.out.find("\n2 built, 0 failed\n"), std::string::npos) << p.out;
  expect_plain(p.out);
  expect_plain(p.err);
}

// On a terminal (MSKB_PROGRESS=live here) `mskb build` draws the live line on stderr: the count,
// the file in flight, elapsed and an ETA once one kernel is done; the result lines still go to
// stdout (a file here, not that terminal), and the live line ends clean.
TEST(Progress, MskbBuildDrawsTheCountAndEtaOnATerminal) {
  Cli c;
  c.env["FAKE_NVCC_SLEEP"] = "1.1";
  c.env["FAKE_NVCC_EXPORTS"] = "extern-c";
  c.env["MSKB_PROGRESS"] = "live";
  const std::vector<std::string> k = two_kernels(c);
  const Proc p = c.run({"build", "--kernel", k[0], "--kernel", k[1], "-j", "1"}, CM_MSKB_BIN);
  ASSERT_EQ(p.code, 0) << p.out << p.err;
  EXPECT_TRUE(std::regex_search(p.err, std::regex("\r\\[0/2\\] build  \\S+/a_kernel\\.cu  elapsed \\d\\d:\\d\\d  ETA --\x1b\\[K")))
      << p.err;
  EXPECT_TRUE(std::regex_search(p.err, std::regex("\r\\[1/2\\] build  \\S+/b_kernel\\.cu  elapsed \\d\\d:\\d\\d  ETA \\d\\d:\\d\\d\x1b\\[K")))
      << p.err;
  expect_clean_end(p.err);
  EXPECT_NE(p.out.find("[1/2] ok   "), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("\n2 built, 0 failed\n"), std::string::npos) << p.out;
  expect_plain(p.out);

  // --json -: stdout is the JSON alone; the lines go above the live line on stderr.
  const Proc j = c.run({"build", "--kernel", k[0], "--kernel", k[1], "--json", "-"}, CM_MSKB_BIN);
  ASSERT_EQ(j.code, 0) << j.err;
  EXPECT_EQ(json::parse(j.out).size(), 2u) << j.out;
  EXPECT_NE(j.err.find("\r" + kClear + "[1/2] ok   "), std::string::npos) << j.err;
  expect_clean_end(j.err);
}

}  // namespace
