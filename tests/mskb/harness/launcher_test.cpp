// The launcher (mskb/launcher.hpp): the srun command line as a pure function, the reading of a
// failed launch, and the process plumbing it relies on (report lines on stdout, SIGTERM before
// SIGKILL), end to end through the fake srun (tests/support/fakes/srun).
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <mutex>
#include <sstream>
#include <thread>

#include "mskb/harness/evaluator.hpp"
#include "mskb/harness/lane_scheduler.hpp"
#include "mskb/harness/launcher.hpp"
#include "mskb/harness/slurm_units.hpp"
#include "mskb/util/process.hpp"
#include "mskb/core/registry.hpp"

using namespace mskb;
namespace fs = std::filesystem;

namespace {

Launcher slurm(std::vector<std::string> args = {}) {
  Launcher l;
  l.kind = "slurm";
  l.args = std::move(args);
  l.work_root = "/shared/work";
  return l;
}

// Per process: two runs of this test at once (two checkouts, ctest twice) must not share files
// (a shared fake-srun state folder removed by one run hung the other).
std::string tmp(const std::string& name) {
  return (fs::temp_directory_path() / ("mskb-launcher-test-" + std::to_string(::getpid()) + "-" + name)).string();
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_) ::setenv(name_, old_.c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace

TEST(Launcher, LocalRunsTheCommandAsItIs) {
  const std::vector<std::string> inner = {"/x/mskb-runner", "/tmp/r/request.json", "3"};
  const LaunchCommand c = launch_command(Launcher{}, "", inner, 3, kEvalJobName);
  EXPECT_EQ(c.argv, inner);
  EXPECT_FALSE(c.report_on_stdout);
  EXPECT_EQ(c.term_grace_s, 0);
  EXPECT_EQ(first_line_timeout(Launcher{}, 120), 120);
  EXPECT_NO_THROW(validate(Launcher{}));
}

TEST(Launcher, SlurmStepWithOneGpuReportFdOnStdoutAndTheUsersOptionsLast) {
  const Launcher l = slurm(split_words("  --partition=gpu   --account=X --time=00:20:00 "));
  const LaunchCommand c = launch_command(l, "/usr/bin/srun", {"compute-sanitizer", "--tool", "memcheck", "/x/mskb-runner", "/w/request.json", "3"},
                                         3, kEvalJobName);
  const std::vector<std::string> want = {"/usr/bin/srun", "--quiet", "--ntasks=1", "--nodes=1", "--gres=gpu:1",
                                         "--job-name=cudamaster-eval", "--partition=gpu", "--account=X", "--time=00:20:00",
                                         "/bin/sh", "-c", "exec \"$0\" \"$@\" 3>&1 1>&2",
                                         "compute-sanitizer", "--tool", "memcheck", "/x/mskb-runner", "/w/request.json", "3"};
  EXPECT_EQ(c.argv, want);
  EXPECT_TRUE(c.report_on_stdout);
  EXPECT_GT(c.term_grace_s, 0);  // srun gets SIGTERM first: it cancels the step
  // No --unbuffered (a pseudo-terminal for the task), no --time unless the user gives one.
  const LaunchCommand plain = launch_command(slurm(), "srun", {"r", "q", "5"}, 5, kProfileJobName);
  for (const std::string& a : plain.argv) {
    EXPECT_NE(a, "--unbuffered");
    EXPECT_NE(a.rfind("--time", 0), 0u) << a;
  }
  EXPECT_EQ(plain.argv[5], "--job-name=cudamaster-profile");
  EXPECT_EQ(plain.argv[8], "exec \"$0\" \"$@\" 5>&1 1>&2");
  EXPECT_DOUBLE_EQ(first_line_timeout(slurm(), 120), 3600 + 120);  // the queue, then the usual start
}

TEST(Launcher, UserGresForAGpuTypeReplacesTheDefault) {
  const auto argv = srun_prefix(slurm({"--gres=gpu:h100:1", "-p", "gpu"}), "srun", kEvalJobName);
  EXPECT_EQ(argv, (std::vector<std::string>{"srun", "--quiet", "--ntasks=1", "--nodes=1", "--job-name=cudamaster-eval",
                                            "--gres=gpu:h100:1", "-p", "gpu"}));
  EXPECT_NO_THROW(validate(slurm({"--gres=gpu:h100:1"})));
  EXPECT_NO_THROW(validate(slurm({"--gres", "gpu:1"})));
}

TEST(Launcher, OptionsThatBreakTheOneGpuStepAreRefused) {
  for (const std::string bad : {"--ntasks=2", "-n2", "-N", "--nodes=1-2", "--gpus=2", "-G1", "--gres=gpu:2", "--gres=gpu:a100:4",
                                "--output=x.log", "-o", "--error=e", "-e", "--input=none", "--pty", "--label", "-l", "--unbuffered", "-u"}) {
    try {
      validate(slurm({"--partition=gpu", bad}));
      ADD_FAILURE() << bad << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("is not allowed"), std::string::npos) << e.what();
    }
  }
  for (const std::string good : {"-p", "gpu", "-A", "acct", "--exact", "--mem=16G", "--constraint=h100", "-c8", "--qos=high"})
    EXPECT_NO_THROW(validate(slurm({good}))) << good;
  Launcher no_root = slurm();
  no_root.work_root.clear();
  EXPECT_THROW(validate(no_root), std::invalid_argument);
  Launcher odd;
  odd.kind = "pbs";
  EXPECT_THROW(validate(odd), std::invalid_argument);
}

TEST(Launcher, AFailedLaunchIsSrunsFirstErrorNotTheTasksStatus) {
  const Launcher l = slurm();
  ProcessResult failed;
  failed.exit_code = 1;
  EXPECT_EQ(launch_failure(l, failed, false,
                           "srun: error: invalid partition specified: nope\n"
                           "srun: error: Unable to allocate resources: Invalid partition name specified\n"),
            "srun: error: invalid partition specified: nope");
  ProcessResult bad_option;
  bad_option.exit_code = 255;
  EXPECT_EQ(launch_failure(l, bad_option, false, "srun: unrecognized option '--bogus'\nTry \"srun --help\" for more information\n"),
            "srun: unrecognized option '--bogus'");
  // The step ran but the runner is not on a shared filesystem.
  ProcessResult missing;
  missing.exit_code = 127;
  const std::string why = launch_failure(
      l, missing, false, "/x/mskb-runner: 1: exec: /x/mskb-runner: not found\nsrun: error: node3: task 0: Exited with exit code 127\n");
  EXPECT_NE(why.find("cannot run the program"), std::string::npos) << why;
  EXPECT_NE(why.find("/x/mskb-runner: not found"), std::string::npos) << why;
  // The child's own ends are not launch failures: a crash, an exit code, lines already sent.
  ProcessResult crash;
  crash.exit_code = 139;
  EXPECT_EQ(launch_failure(l, crash, false, "Segmentation fault\nsrun: error: node3: task 0: Segmentation fault\n"), "");
  EXPECT_EQ(launch_failure(l, failed, true, "srun: error: Unable to allocate resources\n"), "");
  EXPECT_EQ(launch_failure(Launcher{}, failed, false, "srun: error: Unable to allocate resources\n"), "");
  ProcessResult queued;
  queued.timed_out = true;
  EXPECT_NE(launch_failure(l, queued, false, "").find("did not start within 3600 s"), std::string::npos);
}

TEST(Launcher, SrunsSignalExitCodesReadAsSignalsAndItsLinesAreNotTheChilds) {
  ProcessResult r;
  r.exit_code = 139;
  const ProcessResult s = as_local_result(slurm(), r);
  EXPECT_TRUE(s.signaled);
  EXPECT_EQ(s.signal, SIGSEGV);
  EXPECT_FALSE(as_local_result(Launcher{}, r).signaled);
  r.exit_code = 86;  // compute-sanitizer's error exit code stays an exit code
  EXPECT_FALSE(as_local_result(slurm(), r).signaled);
  EXPECT_EQ(last_child_line("cudaErrorIllegalAddress at x\nsrun: error: node3: task 0: Segmentation fault\n"), "cudaErrorIllegalAddress at x");
}

TEST(Launcher, JsonRoundTripAndDescription) {
  Launcher l = slurm({"--partition=gpu", "--account=X"});
  l.queue_timeout_s = 90;
  l.srun = "/opt/slurm/bin/srun";
  const Launcher b = launcher_from_json(nlohmann::json::parse(to_json(l).dump()));
  EXPECT_EQ(b.kind, "slurm");
  EXPECT_EQ(b.args, l.args);
  EXPECT_EQ(b.work_root, "/shared/work");
  EXPECT_EQ(b.queue_timeout_s, 90);
  EXPECT_EQ(b.srun, l.srun);
  EXPECT_EQ(describe(b), "slurm (srun --partition=gpu --account=X; work dir /shared/work)");
  EXPECT_EQ(describe(launcher_from_json(nlohmann::json())), "local");
  EXPECT_EQ(to_json(Launcher{}), (nlohmann::json{{"kind", "local"}}));
}

TEST(Launcher, SlurmWorkDirsAreUnderTheSharedRoot) {
  Launcher l = slurm();
  l.work_root = tmp("root");
  const std::string dir = launch_work_dir(l, "spmv_csr-fp32-vendor");
  EXPECT_EQ(dir.rfind(l.work_root + "/", 0), 0u) << dir;
  EXPECT_TRUE(fs::is_directory(dir));
  EXPECT_EQ(make_work_dir("x").rfind(fs::temp_directory_path().string(), 0), 0u);
  fs::remove_all(l.work_root);
}

TEST(Launcher, SrunProgramFromTheLauncherTheEnvironmentOrPath) {
  Launcher l = slurm();
  l.srun = MSKB_FAKE_SRUN;
  EXPECT_EQ(srun_program(l), MSKB_FAKE_SRUN);
  l.srun = "/nonexistent/srun";
  EXPECT_THROW(srun_program(l), std::runtime_error);
  l.srun.clear();
  {
    ScopedEnv env("MSKB_SRUN", MSKB_FAKE_SRUN);
    EXPECT_EQ(srun_program(l), MSKB_FAKE_SRUN);
  }
  ScopedEnv env("MSKB_SRUN", "");
  ScopedEnv path("PATH", "/nonexistent");
  try {
    (void)srun_program(l);
    ADD_FAILURE() << "found an srun on an empty PATH";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("srun not found on PATH"), std::string::npos) << e.what();
  }
}

TEST(Process, ReportOnStdoutLeavesStderrToTheLog) {
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "echo '{\"a\":1}'; echo to-log >&2; read x && echo read-stdin >&2; exit 0"};
  o.report_on_stdout = true;
  o.log_path = tmp("stdout-log");
  std::vector<std::string> lines;
  const ProcessResult r = run_process(o, [&](const std::string& l) {
    lines.push_back(l);
    return 0.0;
  });
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(lines, (std::vector<std::string>{"{\"a\":1}"}));
  EXPECT_NE(r.log_tail.find("to-log"), std::string::npos);
  EXPECT_EQ(r.log_tail.find("read-stdin"), std::string::npos);  // stdin is /dev/null
}

// SpawnOptions::nice and run_command's nice raise the child's nice value by that much (capped at
// 19 by the kernel); 0 leaves it as ours.
TEST(Process, NiceLowersTheChildsPriority) {
  std::string base;
  ASSERT_EQ(run_command({"/bin/sh", "-c", "nice"}, base, 10), 0) << base;
  const int ours = std::stoi(base);
  std::string out;
  ASSERT_EQ(run_command({"/bin/sh", "-c", "nice"}, out, 10, "", 0, 7), 0) << out;
  EXPECT_EQ(std::stoi(out), std::min(19, ours + 7));
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", R"sh(printf '{"nice":%s}\n' "$(nice)")sh"};
  o.report_on_stdout = true;
  o.log_path = tmp("nice-log");
  for (const int by : {0, 10}) {
    o.nice = by;
    std::vector<std::string> lines;
    const ProcessResult r = run_process(o, [&](const std::string& l) {
      lines.push_back(l);
      return 0.0;
    });
    ASSERT_EQ(r.exit_code, 0) << r.log_tail;
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0], "{\"nice\":" + std::to_string(std::min(19, ours + by)) + "}") << by;
  }
}

TEST(Process, WatchdogSendsSigtermFirstWhenGivenAGracePeriod) {
  // The child (as srun does) handles SIGTERM: cleans up, says so, exits.
  const std::string marker = tmp("terminated");
  fs::remove(marker);
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "trap 'echo cancelled > " + marker + "; exit 143' TERM; echo '{}' >&3; while :; do sleep 0.05; done"};
  o.log_path = tmp("grace-log");
  o.term_grace_s = 20;
  const ProcessResult r = run_process(o, [](const std::string&) { return 0.3; });
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.seconds, 10.0);  // it left at SIGTERM, long before the grace ran out
  EXPECT_EQ(slurp(marker), "cancelled\n");
  // Without a grace period: SIGKILL, no chance to clean up.
  fs::remove(marker);
  o.term_grace_s = 0;
  const ProcessResult k = run_process(o, [](const std::string&) { return 0.3; });
  EXPECT_TRUE(k.timed_out);
  EXPECT_FALSE(fs::exists(marker));
}

// The whole step through the fake srun: the shell wrapper moves the runner's fd 3 onto the
// step's stdout and its stdout into the log.
TEST(Process, ThroughTheFakeSrunReportLinesArriveAndTheLogKeepsTheRest) {
  Launcher l = slurm({"--partition=gpu"});
  const LaunchCommand c = launch_command(
      l, MSKB_FAKE_SRUN, {"/bin/sh", "-c", "echo '{\"event\":\"done\"}' >&3; echo runner-stdout; echo runner-stderr >&2"}, 3, kEvalJobName);
  SpawnOptions o;
  o.argv = c.argv;
  o.report_on_stdout = c.report_on_stdout;
  o.log_path = tmp("fake-srun-log");
  std::vector<std::string> lines;
  const ProcessResult r = run_process(o, [&](const std::string& line) {
    lines.push_back(line);
    return 0.0;
  });
  EXPECT_EQ(r.exit_code, 0) << r.log_tail;
  EXPECT_EQ(lines, (std::vector<std::string>{"{\"event\":\"done\"}"}));
  EXPECT_NE(r.log_tail.find("runner-stdout"), std::string::npos) << r.log_tail;
  EXPECT_NE(r.log_tail.find("runner-stderr"), std::string::npos) << r.log_tail;
}

// evaluate() over a step that cannot be allocated: harness_error with srun's line, not "crashed".
TEST(Launcher, EvaluationWhoseStepCannotStartIsAHarnessError) {
  ScopedEnv fail("FAKE_SRUN_FAIL", "request.json");
  EvalOptions o;
  o.launcher = slurm({"--partition=gpu"});
  o.launcher.work_root = tmp("eval-root");
  o.launcher.srun = MSKB_FAKE_SRUN;
  o.runner = "/nonexistent/mskb-runner";  // never started
  const ContenderResult r = evaluate(get_task("vector_add"), Precision::fp32, "candidate", "k.cu", "/x/k.so", o);
  EXPECT_EQ(r.disposition, mskb::Disposition::harness_error);
  EXPECT_EQ(r.message, "harness_error: srun: error: Unable to allocate resources: Requested node configuration is not available");
  // The request went to the shared root, where the node can read it.
  bool found = false;
  for (const auto& e : fs::recursive_directory_iterator(o.launcher.work_root)) found |= e.path().filename() == "request.json";
  EXPECT_TRUE(found);
  // A runner the nodes cannot see: also the harness's problem, with the shell's words.
  ScopedEnv no_fail("FAKE_SRUN_FAIL", "no-such-text");
  const ContenderResult m = evaluate(get_task("vector_add"), Precision::fp32, "candidate", "k.cu", "/x/k.so", o);
  EXPECT_EQ(m.disposition, mskb::Disposition::harness_error);
  EXPECT_NE(m.message.find("/nonexistent/mskb-runner: not found"), std::string::npos) << m.message;
  // No srun at all: one clear line, before anything is spawned.
  o.launcher.srun = "/nonexistent/srun";
  const ContenderResult n = evaluate(get_task("vector_add"), Precision::fp32, "candidate", "k.cu", "/x/k.so", o);
  EXPECT_EQ(n.disposition, mskb::Disposition::harness_error);
  EXPECT_EQ(n.message, "harness_error: srun not found at /nonexistent/srun");
  fs::remove_all(o.launcher.work_root);
}

// Why a Slurm attempt failed, from srun's exit and its log (the lines real srun writes).
TEST(SlurmUnits, FailureReasons) {
  ProcessResult term;
  term.signaled = true;
  term.signal = SIGTERM;
  EXPECT_EQ(slurm_failure(term, "slurmstepd-vm: error: *** STEP 2.0 ON vm CANCELLED AT 2026-12-01T19:14:07 ***\n"
                                "srun: error: vm: task 0: Terminated\n"),
            "the job was cancelled (scancel or the scheduler)");
  EXPECT_EQ(slurm_failure(term, "slurmstepd: error: *** JOB 7 ON n1 CANCELLED AT 2026-12-01T19:14:07 DUE TO TIME LIMIT ***\n"),
            "the job hit its time limit (--time)");
  ProcessResult one;
  one.exit_code = 1;
  EXPECT_EQ(slurm_failure(one, "srun: error: Unable to allocate resources: Invalid partition name specified\n"),
            "srun: error: Unable to allocate resources: Invalid partition name specified");
  ProcessResult two;
  two.exit_code = 2;
  EXPECT_EQ(slurm_failure(two, "progress\nmskb: error: no task 'x'\nsrun: error: n1: task 0: Exited with exit code 2\n"),
            "exit code 2: mskb: error: no task 'x'");
  // srun gone by SIGTERM (not the driver's) before Slurm's reason reached its log.
  EXPECT_EQ(slurm_failure(term, ""), "the job was cancelled or stopped by Slurm (srun ended by SIGTERM before it logged why)");
  ProcessResult segv;
  segv.signaled = true;
  segv.signal = SIGSEGV;
  EXPECT_EQ(slurm_failure(segv, ""), "killed by SIGSEGV");
}

// The batch through the fake srun: at most max_jobs at once, a failed attempt started again up
// to `retries` times, then reported with the judge's reason; srun's environment as asked.
TEST(SlurmUnits, RetriesAFailedAttemptThenReportsIt) {
  const std::string dir = tmp("units");
  fs::remove_all(dir);
  fs::create_directories(dir);
  ScopedEnv state("FAKE_SRUN_STATE", dir);
  ScopedEnv drop("MSKB_UNITS_TEST_DROP", "x");
  SlurmUnitsOptions o;
  o.launcher = slurm({"--partition=gpu"});
  o.launcher.srun = MSKB_FAKE_SRUN;
  o.max_jobs = 2;
  o.retries = 1;
  o.env = {{"MSKB_UNITS_TEST", "set"}};
  o.unset_env = {"MSKB_UNITS_TEST_DROP"};
  // Unit 0 succeeds; unit 1 fails on its first attempt only; unit 2 always fails.
  const std::vector<std::string> names = {"u0", "u1", "u2"};
  std::vector<std::string> lines;
  SlurmUnitsCallbacks cb;
  cb.start = [&](std::size_t u, int attempt) {
    UnitAttempt a;
    const std::string code = u == 0 || (u == 1 && attempt == 2) ? "0" : "3";
    a.command = {"/bin/sh", "-c", "sleep 0.2; echo \"env=$MSKB_UNITS_TEST drop=${MSKB_UNITS_TEST_DROP-unset}\"; exit " + code};
    a.log_path = dir + "/" + std::to_string(u) + "." + std::to_string(attempt) + ".log";
    return a;
  };
  cb.judge = [&](std::size_t, int, const ProcessResult& r, const std::string& log) {
    EXPECT_NE(log.find("env=set drop=unset"), std::string::npos) << log;
    return UnitVerdict{!r.signaled && r.exit_code == 0, slurm_failure(r, log)};
  };
  cb.say = [&](const std::string& line) { lines.push_back(line); };
  const SlurmUnitsOutcome out = run_slurm_units(names, o, cb);
  EXPECT_EQ(out.interrupted_by, 0);
  EXPECT_EQ(out.failed, (std::vector<std::string>{"", "", "exit code 3: env=set drop=unset"}));
  EXPECT_EQ(out.attempts, (std::vector<int>{1, 2, 2}));
  EXPECT_EQ(slurp(dir + "/max"), "2\n");
  EXPECT_EQ(slurp(dir + "/count"), "0\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "u1: attempt 1 failed (exit code 3: env=set drop=unset); retrying");
  fs::remove_all(dir);
}

// Two GPUs, three timing workers per GPU: a unit that becomes ready while one GPU already times
// another goes to the idle GPU, never onto the busy one (whichever worker woke first took it).
TEST(LaneScheduler, AReadyUnitGoesToTheLaneWithFewestUnits) {
  const LaneScheduler lanes({"0", "1"});
  for (int round = 0; round < 20; ++round) {
    std::mutex m;
    std::map<std::size_t, std::set<std::string>> lanes_of_unit;
    const WorkUnits units{{0, 1}, {2, 3}};
    lanes.run_two_stages(
        units, 2, 3,
        [](std::size_t item, const std::string&) {  // unit 1 is ready a little after unit 0
          if (item >= 2) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        },
        nullptr,
        [&](std::size_t item, const std::string& lane) {
          {
            std::lock_guard<std::mutex> lock(m);
            lanes_of_unit[item / 2].insert(lane);
          }
          std::this_thread::sleep_for(std::chrono::milliseconds(30));
        });
    ASSERT_EQ(lanes_of_unit.size(), 2u);
    ASSERT_EQ(lanes_of_unit[0].size(), 1u) << "a unit's items on one lane";
    ASSERT_EQ(lanes_of_unit[1].size(), 1u);
    EXPECT_NE(*lanes_of_unit[0].begin(), *lanes_of_unit[1].begin()) << "round " << round << ": both units on one GPU";
  }
  // A unit ready after the first one's second stage ended still goes to the lane that has taken none.
  for (int round = 0; round < 5; ++round) {
    std::mutex m;
    std::map<std::size_t, std::string> lane_of_unit;
    lanes.run_two_stages(
        WorkUnits{{0}, {1}}, 2, 3,
        [](std::size_t item, const std::string&) {
          if (item == 1) std::this_thread::sleep_for(std::chrono::milliseconds(40));
        },
        nullptr,
        [&](std::size_t item, const std::string& lane) {
          std::lock_guard<std::mutex> lock(m);
          lane_of_unit[item] = lane;
        });
    ASSERT_EQ(lane_of_unit.size(), 2u);
    EXPECT_NE(lane_of_unit[0], lane_of_unit[1]) << "round " << round;
  }
  // One lane takes every unit.
  std::set<std::string> seen;
  std::mutex seen_mutex;
  LaneScheduler({"7"}).run_two_stages(
      WorkUnits{{0}, {1}, {2}}, 1, 3, [](std::size_t, const std::string&) {}, nullptr, [&](std::size_t, const std::string& lane) {
        std::lock_guard<std::mutex> lock(seen_mutex);
        seen.insert(lane);
      });
  EXPECT_EQ(seen, (std::set<std::string>{"7"}));
}
