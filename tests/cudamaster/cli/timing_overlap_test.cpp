// `mskb run --checks-per-gpu N --timing-overlap M` through the real binary over the fake runner
// (FAKE_RUNNER_TRACE: one line per evaluation with its request's gpu_lock and host_threads, its
// start and end, and its exclusive hold of the lane lock around the timings): the timing phase
// runs up to M timing parts of one GPU at once, all of a lane share one lock file, a (task,
// precision) group stays on one GPU, M > 1 starts a group's timing parts as soon as its checks are
// done (beside other groups' checks), and M = 1 is the one-at-a-time order of before.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <climits>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "mskb/harness/suite.hpp"
#include "mskb/util/files.hpp"
#include "mskb/util/parallel.hpp"
#include "support/child_process.hpp"

using namespace cmtest;

namespace {

struct Cli : FakeCliDir {
  Proc run(const std::vector<std::string>& args) { return run_program(args, CM_MSKB_BIN); }
};

struct Eval {
  std::string contender;  // task|precision|contender, from the report's build keys
  std::string gpu, gpu_lock, gpu_lock_log;
  int host_threads = 0, nice = 0;
  bool timing = false;
  int64_t from = 0, to = 0;
  int64_t x_from = 0, x_to = 0;  // the exclusive hold (timing parts with a lock)
  double target_noise = 0;        // the request's timing configuration
  bool load_before_lock = false;  // RunRequest::load_before_lock
  std::string share_dir;          // RunRequest::instance_share_dir
  int consumers = 0, checks = 0;  // ... instance_share_consumers; the checks the part made
  int made = 0, found = 0, wrong = 0;  // instances it published, copied, copied with other values
};

// The trace's evaluations, named through the report (a library is the build key's .so).
std::vector<Eval> evaluations(const std::string& trace, const json& report) {
  std::map<std::string, std::string> names;  // key.so|precision -> task|precision|contender
  for (const json& c : report["contenders"])
    names[c["build"]["key"].get<std::string>() + ".so|" + c["precision"].get<std::string>()] =
        c["task"].get<std::string>() + "|" + c["precision"].get<std::string>() + "|" + c["contender"].get<std::string>();
  std::vector<Eval> out;
  for (const std::string& line : read_lines(trace)) {
    const json t = json::parse(line);
    Eval e;
    const std::string lib = t["library"];
    e.contender = names[lib.substr(lib.rfind('/') + 1) + "|" + t["precision"].get<std::string>()];
    EXPECT_FALSE(e.contender.empty()) << line;
    e.gpu = t["gpu"];
    e.gpu_lock = t["gpu_lock"];
    e.gpu_lock_log = t.value("gpu_lock_log", "");
    e.host_threads = t["host_threads"];
    e.nice = t["nice"];
    e.timing = t["timings"].get<int>() > 0;
    e.from = t["start_ns"];
    e.to = t["end_ns"];
    e.x_from = t.value("exclusive_from_ns", int64_t{0});
    e.x_to = t.value("exclusive_to_ns", int64_t{0});
    e.target_noise = t.value("target_noise", 0.0);
    e.load_before_lock = t.value("load_before_lock", false);
    e.share_dir = t.value("instance_share_dir", "");
    e.consumers = t.value("instance_share_consumers", 0);
    e.checks = t.value("checks", 0);
    e.made = t.value("shared_made", 0);
    e.found = t.value("shared_found", 0);
    e.wrong = t.value("shared_wrong", 0);
    out.push_back(e);
  }
  return out;
}

std::vector<Eval> timing_parts(const std::vector<Eval>& all, const std::string& gpu = "*") {
  std::vector<Eval> out;
  for (const Eval& e : all)
    if (e.timing && (gpu == "*" || e.gpu == gpu)) out.push_back(e);
  std::sort(out.begin(), out.end(), [](const Eval& a, const Eval& b) { return a.from < b.from; });
  return out;
}

// The most evaluations of `evals` running at one instant.
int most_at_once(const std::vector<Eval>& evals) {
  int most = 0;
  for (const Eval& e : evals) {
    int n = 0;
    for (const Eval& o : evals) n += o.from <= e.from && e.from < o.to ? 1 : 0;
    most = std::max(most, n);
  }
  return most;
}

int threads_for(int at_once) { return std::max(1, (mskb::available_cpus() - 2) / at_once); }

}  // namespace

TEST(MskbTimingOverlap, TimingPartsOfOneGpuRunTogetherUnderOneLock) {
  Cli c;
  c.env["FAKE_RUNNER_TRACE"] = c.dir.file("trace.jsonl");
  c.env["FAKE_RUNNER_SLEEP_MS"] = "600";  // host work: long beside the fake's 20 ms timing
  c.env["MSKB_GPU_LOCK_LOG"] = c.dir.file("holds.log");
  // The phases apart, the default (MSKB_PIPELINE=1: TimingPartsStartOnceTheirGroupIsChecked).
  const Proc p = c.run({"run", "--task", "spmv_csr", "--precision", "all", "--budget", "0.01", "--noise", "0.02", "--checks-per-gpu", "2",
                        "--timing-overlap", "3", "--json", c.dir.file("run.json")});
  ASSERT_EQ(p.code, 0) << p.err;
  const json report = json::parse(read_file(c.dir.file("run.json")));
  ASSERT_EQ(report["contenders"].size(), 4u);  // baseline and vendor, fp32 and bf16: two groups
  EXPECT_EQ(report["device"]["checks_per_gpu"], 2);
  EXPECT_EQ(report["device"]["timing_overlap"], 3);
  const std::vector<Eval> all = evaluations(c.dir.file("trace.jsonl"), report);
  ASSERT_EQ(all.size(), 8u);  // a checks part and a timing part each
  const std::vector<Eval> timed = timing_parts(all);
  ASSERT_EQ(timed.size(), 4u);
  // Three at once (never more): the two of the first group and one of the second.
  EXPECT_EQ(most_at_once(timed), 3);
  // One lock file for the lane, in every request of both phases; the host threads shared out.
  const std::string lock = all.front().gpu_lock;
  EXPECT_NE(lock.find("gpu-"), std::string::npos) << lock;
  for (const Eval& e : all) {
    EXPECT_EQ(e.gpu_lock, lock) << e.contender;
    EXPECT_EQ(e.gpu_lock_log, c.dir.file("holds.log")) << e.contender << ": one GPU, one log, its name as given";
    EXPECT_EQ(e.host_threads, threads_for(e.timing ? 2 * 3 : 2)) << e.contender << (e.timing ? " timing" : " checks");
    EXPECT_DOUBLE_EQ(e.target_noise, 0.02) << e.contender << ": --noise does not reach the runner";
  }
  // The timings themselves (the runners' exclusive holds) never overlap.
  for (const Eval& a : timed) {
    ASSERT_GT(a.x_to, a.x_from) << a.contender << ": no exclusive hold";
    for (const Eval& b : timed) {
      if (&a == &b) continue;
      EXPECT_TRUE(a.x_to <= b.x_from || b.x_to <= a.x_from) << a.contender << " and " << b.contender;
    }
  }
  // MSKB_GPU_LOCK_LOG reaches the runners: one logged exclusive hold per timing part.
  std::istringstream holds(read_file(c.dir.file("holds.log")));
  int logged_x = 0;
  for (std::string line; std::getline(holds, line);) logged_x += line.rfind("x ", 0) == 0;
  EXPECT_EQ(logged_x, 4) << read_file(c.dir.file("holds.log"));
  for (const json& r : report["contenders"]) {
    EXPECT_EQ(r["disposition"], "passed") << r.dump();
    // phase_seconds adds both parts; timing_part_seconds is the timing part's alone: all of the
    // timing, and the checks of the timed seeds, fewer than the checks part's.
    ASSERT_TRUE(r.contains("timing_part_seconds")) << r.dump();
    const json& all_s = r["phase_seconds"];
    const json& part_s = r["timing_part_seconds"];
    EXPECT_GT(part_s.value("timing", 0.0), 0.0) << r.dump();
    EXPECT_DOUBLE_EQ(part_s.value("timing", 0.0), all_s.value("timing", 0.0)) << r.dump();
    EXPECT_GT(part_s.value("check", 0.0), 0.0) << r.dump();
    EXPECT_LT(part_s.value("check", 0.0), all_s.value("check", 0.0)) << r.dump();
  }
  // A timing part's progress line gives its own seconds: about its runner's (600 ms of host work
  // each), not its checks part's added (another 600 ms and more).
  for (const Eval& e : timed) {
    std::string name = e.contender;
    std::replace(name.begin(), name.end(), '|', ' ');
    const std::size_t at = p.err.find(name + " timing: passed (");
    ASSERT_NE(at, std::string::npos) << name << "\n" << p.err;
    const double line_s = std::stod(p.err.substr(p.err.find('(', at + name.size()) + 1));
    const double runner_s = static_cast<double>(e.to - e.from) * 1e-9;
    EXPECT_GE(line_s, runner_s - 0.05) << name;
    EXPECT_LT(line_s, runner_s + 0.45) << name << ": the checks part's seconds counted again?";
  }
}

// --timing-overlap 1 (the default where a user kernel is in the run): one timing part at a time
// per GPU, in the order of the items (the order of before the option).
TEST(MskbTimingOverlap, OneIsTheOneAtATimeOrder) {
  Cli c;
  c.env["FAKE_RUNNER_TRACE"] = c.dir.file("trace.jsonl");
  c.env["FAKE_RUNNER_SLEEP_MS"] = "100";
  const Proc p = c.run({"run", "--task", "spmv_csr", "--precision", "all", "--budget", "0.01", "--checks-per-gpu", "2",
                        "--timing-overlap", "1", "--json", c.dir.file("run.json")});
  ASSERT_EQ(p.code, 0) << p.err;
  const json report = json::parse(read_file(c.dir.file("run.json")));
  EXPECT_EQ(report["device"]["timing_overlap"], 1);
  const std::vector<Eval> timed = timing_parts(evaluations(c.dir.file("trace.jsonl"), report));
  ASSERT_EQ(timed.size(), 4u);
  EXPECT_EQ(most_at_once(timed), 1);
  std::vector<std::string> order, items;
  for (const Eval& e : timed) {
    order.push_back(e.contender);
    EXPECT_EQ(e.host_threads, threads_for(1));
  }
  for (const json& r : report["contenders"])
    items.push_back(r["task"].get<std::string>() + "|" + r["precision"].get<std::string>() + "|" + r["contender"].get<std::string>());
  EXPECT_EQ(order, items);
  EXPECT_EQ(items.front(), "spmv_csr|fp32|baseline");
}

// Two GPUs: each lane has its own lock file and its own hold log, and each (task, precision)
// group is timed on one GPU.
TEST(MskbTimingOverlap, EachLaneItsLockEachGroupOneGpu) {
  Cli c;
  c.env["FAKE_GPUS"] = "2";
  c.env["FAKE_RUNNER_TRACE"] = c.dir.file("trace.jsonl");
  const std::string log = c.dir.file("holds.log");
  c.env["MSKB_GPU_LOCK_LOG"] = log;
  c.env["FAKE_RUNNER_SLEEP_MS"] = "300";
  const Proc p = c.run({"run", "--task", "spmv_csr,vector_add", "--precision", "all", "--budget", "0.01", "--checks-per-gpu", "2",
                        "--timing-overlap", "3", "--json", c.dir.file("run.json")});
  ASSERT_EQ(p.code, 0) << p.err;
  const json report = json::parse(read_file(c.dir.file("run.json")));
  EXPECT_EQ(report["device"]["timing_overlap"], 3);
  const std::vector<Eval> all = evaluations(c.dir.file("trace.jsonl"), report);
  ASSERT_EQ(all.size(), 16u);  // 2 tasks x 2 precisions x (baseline, vendor) x 2 parts
  std::map<std::string, std::set<std::string>> locks_of_gpu, gpus_of_group;
  for (const Eval& e : all) {
    locks_of_gpu[e.gpu].insert(e.gpu_lock);
    if (e.timing) gpus_of_group[e.contender.substr(0, e.contender.rfind('|'))].insert(e.gpu);
    // The host's CPUs are shared out among every verifier of the phase, both GPUs' together (phases
    // apart, the default: 2 check parts per GPU, then 3 timing parts of two pools each per GPU).
    EXPECT_EQ(e.host_threads, threads_for(2 * (e.timing ? 2 * 3 : 2))) << e.contender << (e.timing ? " timing" : " checks");
  }
  ASSERT_EQ(locks_of_gpu.size(), 2u);
  EXPECT_EQ(locks_of_gpu["0"].size(), 1u);
  EXPECT_EQ(locks_of_gpu["1"].size(), 1u);
  EXPECT_NE(*locks_of_gpu["0"].begin(), *locks_of_gpu["1"].begin());
  ASSERT_EQ(gpus_of_group.size(), 4u);
  for (const auto& [group, gpus] : gpus_of_group) EXPECT_EQ(gpus.size(), 1u) << group << " timed on two GPUs";
  for (const Eval& e : all) EXPECT_EQ(e.gpu_lock_log, log + ".gpu" + e.gpu) << e.contender;
  // Each group's timing parts share its instances on whichever GPU it went to: one folder per
  // group, each timed instance made once and copied once.
  std::map<std::string, std::set<std::string>> dirs_of_group;
  std::map<std::string, int> made, found;
  for (const Eval& e : timing_parts(all)) {
    const std::string group = e.contender.substr(0, e.contender.rfind('|'));
    dirs_of_group[group].insert(e.share_dir);
    made[group] += e.made;
    found[group] += e.found;
    EXPECT_EQ(e.wrong, 0) << e.contender;
  }
  std::set<std::string> dirs;
  for (const auto& [group, d] : dirs_of_group) {
    ASSERT_EQ(d.size(), 1u) << group;
    EXPECT_FALSE(d.begin()->empty()) << group;
    dirs.insert(*d.begin());
    EXPECT_GT(made[group], 0) << group;
    EXPECT_EQ(made[group], found[group]) << group;
  }
  EXPECT_EQ(dirs.size(), 4u);
  EXPECT_FALSE(std::filesystem::exists(log)) << "one log for both GPUs";
  for (const std::string gpu : {"0", "1"}) {
    const std::vector<Eval> lane = timing_parts(all, gpu);
    EXPECT_LE(most_at_once(lane), 3) << "gpu " << gpu;
    // Each lane's log holds its own timings' exclusive holds, one line each.
    std::istringstream holds(read_file(log + ".gpu" + gpu));
    std::size_t logged_x = 0;
    for (std::string line; std::getline(holds, line);) logged_x += line.rfind("x ", 0) == 0;
    EXPECT_EQ(logged_x, lane.size()) << "gpu " << gpu;
    for (const Eval& a : lane)
      for (const Eval& b : lane) {
        if (&a == &b) continue;
        EXPECT_TRUE(a.x_to <= b.x_from || b.x_to <= a.x_from) << a.contender << " and " << b.contender;
      }
  }
}

// With timing parts several at once, a group's timing parts start as soon as its own checks have
// ended, while other groups are still being checked (pipelined, MSKB_PIPELINE=1); by default every
// check comes before every timing part. Either way the timings themselves never overlap.
TEST(MskbTimingOverlap, TimingPartsStartOnceTheirGroupIsChecked) {
  for (const bool pipelined : {true, false}) {
    SCOPED_TRACE(pipelined ? "MSKB_PIPELINE=1" : "phases apart");
    Cli c;
    c.env["FAKE_RUNNER_TRACE"] = c.dir.file("trace.jsonl");
    c.env["FAKE_RUNNER_SLEEP_MS"] = "400";
    if (pipelined) c.env["MSKB_PIPELINE"] = "1";
    const Proc p = c.run({"run", "--task", "spmv_csr,vector_add", "--precision", "all", "--budget", "0.01", "--checks-per-gpu", "2",
                          "--timing-overlap", "3", "--json", c.dir.file("run.json")});
    ASSERT_EQ(p.code, 0) << p.err;
    const json report = json::parse(read_file(c.dir.file("run.json")));
    EXPECT_EQ(report["device"]["pipelined"], pipelined);
    const std::vector<Eval> all = evaluations(c.dir.file("trace.jsonl"), report);
    ASSERT_EQ(all.size(), 16u);  // 4 groups x (baseline, vendor) x (checks part, timing part)
    std::map<std::string, int64_t> checked_at;  // group -> end of its last check part
    int64_t last_check = 0, first_timing = INT64_MAX;
    for (const Eval& e : all) {
      const std::string group = e.contender.substr(0, e.contender.rfind('|'));
      if (e.timing) {
        first_timing = std::min(first_timing, e.from);
      } else {
        checked_at[group] = std::max(checked_at[group], e.to);
        last_check = std::max(last_check, e.to);
      }
    }
    for (const Eval& e : timing_parts(all))
      EXPECT_GE(e.from, checked_at[e.contender.substr(0, e.contender.rfind('|'))]) << e.contender << ": timed before its group was checked";
    if (pipelined) {
      EXPECT_LT(first_timing, last_check) << "no timing part ran beside the checks";
    } else {
      EXPECT_GE(first_timing, last_check);
    }
    const std::vector<Eval> timed = timing_parts(all);
    EXPECT_LE(most_at_once(timed), 3);
    // Pipelined, the check parts run 10 nice steps below the timing parts (capped at 19) with a
    // phased checks phase's share of the CPUs; the timing parts keep a phased timing phase's.
    const int base = ::getpriority(PRIO_PROCESS, 0);
    for (const Eval& e : all) {
      const bool background = pipelined && !e.timing;
      EXPECT_EQ(e.nice, background ? std::min(19, base + 10) : base) << e.contender << (e.timing ? " timing" : " checks");
      EXPECT_EQ(e.host_threads, threads_for(e.timing ? 2 * 3 : 2)) << e.contender << (e.timing ? " timing" : " checks");
    }
    for (const Eval& a : timed)
      for (const Eval& b : timed) {
        if (&a == &b) continue;
        EXPECT_TRUE(a.x_to <= b.x_from || b.x_to <= a.x_from) << a.contender << " and " << b.contender;
      }
    for (const json& r : report["contenders"]) EXPECT_EQ(r["disposition"], "passed") << r.dump();
  }
}

// The timing parts of a (task, precision) group share the instances they prepare: each gets its
// group's folder and the number of parts that take every instance; across the real processes of
// the fake runner (the real InstanceShare), every timed instance is made once and copied once
// (with the values it was made with), and each group's folder is gone once its parts have ended.
// MSKB_SHARE_INSTANCES=0 turns it off; a run with a user's kernel never shares (below).
TEST(MskbTimingOverlap, TimingPartsOfAGroupShareTheirInstances) {
  for (const std::string setting : {"", "pipelined", "0"}) {
    SCOPED_TRACE("setting " + setting);
    const bool on = setting != "0";
    Cli c;
    c.env["FAKE_RUNNER_TRACE"] = c.dir.file("trace.jsonl");
    c.env["FAKE_RUNNER_SLEEP_MS"] = "200";
    if (setting == "pipelined") c.env["MSKB_PIPELINE"] = "1";
    if (!on) c.env["MSKB_SHARE_INSTANCES"] = "0";
    const Proc p = c.run({"run", "--task", "spmv_csr,vector_add", "--precision", "all", "--budget", "0.01", "--checks-per-gpu", "2",
                          "--timing-overlap", "3", "--json", c.dir.file("run.json")});
    ASSERT_EQ(p.code, 0) << p.err;
    const json report = json::parse(read_file(c.dir.file("run.json")));
    EXPECT_EQ(report["device"].value("shared_instances", !on), on);
    const std::vector<Eval> all = evaluations(c.dir.file("trace.jsonl"), report);
    ASSERT_EQ(all.size(), 16u);
    std::map<std::string, std::set<std::string>> dirs_of_group;
    std::map<std::string, int> made, found;
    for (const Eval& e : all) {
      const std::string group = e.contender.substr(0, e.contender.rfind('|'));
      if (!e.timing || !on) {
        EXPECT_EQ(e.share_dir, "") << e.contender << (e.timing ? " timing" : " checks");
        EXPECT_EQ(e.made + e.found, 0) << e.contender;
        continue;
      }
      ASSERT_FALSE(e.share_dir.empty()) << e.contender;
      EXPECT_EQ(e.consumers, 2) << e.contender;
      EXPECT_GT(e.checks, 0) << e.contender;
      EXPECT_EQ(e.made + e.found, e.checks) << e.contender << ": every timed instance made or copied";
      EXPECT_EQ(e.wrong, 0) << e.contender;
      dirs_of_group[group].insert(e.share_dir);
      made[group] += e.made;
      found[group] += e.found;
      EXPECT_FALSE(std::filesystem::exists(e.share_dir)) << e.share_dir << ": left after the run";
    }
    if (!on) continue;
    ASSERT_EQ(dirs_of_group.size(), 4u);
    std::set<std::string> distinct;
    for (const auto& [group, dirs] : dirs_of_group) {
      EXPECT_EQ(dirs.size(), 1u) << group << ": its parts in different folders";
      distinct.insert(*dirs.begin());
      EXPECT_EQ(made[group], found[group]) << group << ": each instance made once and copied once";
      EXPECT_GT(made[group], 0) << group;
    }
    EXPECT_EQ(distinct.size(), 4u) << "two groups in one folder";
    // Phases apart, a group's second timing part waits for its first to end while the lane has
    // the next group's first part to start (the last group aside): it then copies every instance.
    if (setting.empty()) {
      int apart = 0;
      std::map<std::string, std::vector<const Eval*>> parts_of_group;
      for (const Eval& e : all)
        if (e.timing) parts_of_group[e.contender.substr(0, e.contender.rfind('|'))].push_back(&e);
      for (const auto& [group, parts] : parts_of_group) {
        ASSERT_EQ(parts.size(), 2u) << group;
        const Eval& first = parts[0]->from < parts[1]->from ? *parts[0] : *parts[1];
        const Eval& second = &first == parts[0] ? *parts[1] : *parts[0];
        if (second.from >= first.to) {
          ++apart;
          EXPECT_EQ(second.found, second.checks) << group << ": the later part made an instance itself";
        }
      }
      EXPECT_GE(apart, 3) << "groups' parts run side by side while others waited";
    }
    EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(*distinct.begin()).parent_path())) << "the run's share root is left";
    for (const json& r : report["contenders"]) EXPECT_EQ(r["disposition"], "passed") << r.dump();
  }
}

// By default both are auto: --checks-per-gpu from this host's CPUs and memory
// (auto_checks_per_gpu), --timing-overlap 3 for shipped contenders only and 1 once a user kernel
// is in the run; the report's device and reproduce record give the values used, so a rerun on
// another host runs as this one did.
TEST(MskbTimingOverlap, AutoDefaultsAreResolvedAndRecorded) {
  const double memory_gb = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGE_SIZE)) / 1e9;
  const int auto_checks = mskb::auto_checks_per_gpu(mskb::available_cpus(), memory_gb, 1);
  Cli c;
  const Proc p = c.run({"run", "--task", "spmv_csr", "--precision", "fp32", "--budget", "0.01", "--json", c.dir.file("run.json")});
  ASSERT_EQ(p.code, 0) << p.err;
  const json report = json::parse(read_file(c.dir.file("run.json")));
  EXPECT_EQ(report["device"]["checks_per_gpu"], auto_checks);
  EXPECT_EQ(report["reproduce"]["settings"]["checks_per_gpu"], auto_checks);
  EXPECT_EQ(report["reproduce"]["settings"]["timing_overlap"], 3);  // baseline and vendor: shipped
  EXPECT_EQ(report["device"]["timing_overlap"], auto_checks > 1 ? 3 : 1);  // 1: a one-pass run
  // Two checks at once given, the overlap still auto: 3 for shipped kernels, 1 with a user's.
  const std::string kernel = c.dir.file("mine.cu");
  std::ofstream(kernel) << read_file(mskb::source_root() + "/tasks/sparse/spmv_csr/baseline_fp32.cu");
  for (const bool user : {false, true}) {
    std::vector<std::string> args = {"run", "--task", "spmv_csr", "--precision", "fp32", "--budget", "0.01", "--checks-per-gpu", "2",
                                     "--json", c.dir.file("two.json")};
    if (user) args.insert(args.end(), {"--kernel", kernel});
    const Proc q = c.run(args);
    ASSERT_EQ(q.code, 0) << q.err;
    const json r = json::parse(read_file(c.dir.file("two.json")));
    EXPECT_EQ(r["contenders"].size(), user ? 3u : 2u);
    EXPECT_EQ(r["device"]["checks_per_gpu"], 2);
    EXPECT_EQ(r["device"]["timing_overlap"], user ? 1 : 3) << (user ? "with a user kernel" : "shipped only");
    EXPECT_EQ(r["reproduce"]["settings"]["timing_overlap"], user ? 1 : 3);
  }
  // The rule itself: half the CPUs, 12 GB each, shared by the lanes, 1 to 8 per GPU.
  EXPECT_EQ(mskb::auto_checks_per_gpu(16, 135, 1), 8);
  EXPECT_EQ(mskb::auto_checks_per_gpu(64, 540, 1), 8);
  EXPECT_EQ(mskb::auto_checks_per_gpu(16, 64, 1), 5);
  EXPECT_EQ(mskb::auto_checks_per_gpu(16, 135, 2), 4);
  EXPECT_EQ(mskb::auto_checks_per_gpu(2, 24, 1), 1);
  EXPECT_EQ(mskb::auto_checks_per_gpu(1, 4, 4), 1);
  EXPECT_EQ(mskb::auto_timing_overlap(true), 3);
  EXPECT_EQ(mskb::auto_timing_overlap(false), 1);
}

// Shipped contenders' kernel libraries are loaded before the lock is taken (by default, and with
// MSKB_LOAD_OUTSIDE_LOCK=1); a user's kernel, whose library's constructors would run beside
// another's timing, never; with MSKB_LOAD_OUTSIDE_LOCK=0, no one.
TEST(MskbTimingOverlap, LoadOutsideLockOnlyForShippedKernels) {
  Cli c;
  const std::string kernel = c.dir.file("mine.cu");
  // The baseline's source with a line of its own: another build key, so the trace tells them apart.
  std::ofstream(kernel) << read_file(mskb::source_root() + "/tasks/sparse/spmv_csr/baseline_fp32.cu") << "\n// mine\n";
  for (const std::string setting : {"", "1", "0"}) {
    SCOPED_TRACE("MSKB_LOAD_OUTSIDE_LOCK=" + setting);
    const bool on = setting != "0";
    const std::string trace = c.dir.file("trace" + setting + ".jsonl");
    c.env["FAKE_RUNNER_TRACE"] = trace;
    if (setting.empty()) c.env.erase("MSKB_LOAD_OUTSIDE_LOCK");
    else c.env["MSKB_LOAD_OUTSIDE_LOCK"] = setting;
    const Proc p = c.run({"run", "--task", "spmv_csr", "--precision", "fp32", "--budget", "0.01", "--checks-per-gpu", "2", "--kernel",
                          kernel, "--json", c.dir.file("run.json")});
    ASSERT_EQ(p.code, 0) << p.err;
    const json report = json::parse(read_file(c.dir.file("run.json")));
    ASSERT_EQ(report["contenders"].size(), 3u);
    ASSERT_TRUE(report["device"].contains("load_outside_lock"));
    EXPECT_EQ(report["device"]["load_outside_lock"].get<bool>(), on);
    int before = 0, runners = 0;
    for (const Eval& e : evaluations(trace, report)) {
      ++runners;
      const bool shipped = e.contender.find("|baseline") != std::string::npos || e.contender.find("|vendor") != std::string::npos;
      EXPECT_EQ(e.load_before_lock, on && shipped) << e.contender;
      EXPECT_EQ(e.share_dir, "") << e.contender << ": a run with a user's kernel shares no instances";
      before += e.load_before_lock ? 1 : 0;
    }
    EXPECT_EQ(runners, 6);  // three contenders, a checks part and a timing part each
    EXPECT_EQ(before, on ? 4 : 0);
  }
}

// Out of range or not a number: a one-line usage error, exit 2; the option and its default are in --help.
TEST(MskbTimingOverlap, UsageErrorsAndHelp) {
  Cli c;
  for (const std::string bad : {"0", "17", "-1", "two"}) {
    const Proc p = c.run({"run", "--task", "vector_add", "--checks-per-gpu", "2", "--timing-overlap", bad});
    EXPECT_EQ(p.code, 2) << bad << ": " << p.err;
    EXPECT_EQ(std::count(p.err.begin(), p.err.end(), '\n'), 1) << bad << ": " << p.err;
    EXPECT_EQ(p.err.rfind("mskb run: ", 0), 0u) << p.err;  // usage errors name the command
    EXPECT_NE(p.err.find("--timing-overlap"), std::string::npos) << p.err;
    EXPECT_TRUE(p.out.empty()) << p.out;
  }
  // MSKB_PIPELINE is 0 or 1; anything else is refused in one line before anything runs.
  c.env["MSKB_PIPELINE"] = "yes";
  const Proc pipe = c.run({"run", "--task", "vector_add", "--checks-per-gpu", "2", "--timing-overlap", "2"});
  EXPECT_NE(pipe.code, 0) << pipe.err;
  EXPECT_EQ(std::count(pipe.err.begin(), pipe.err.end(), '\n'), 1) << pipe.err;
  EXPECT_NE(pipe.err.find("MSKB_PIPELINE must be 0 or 1"), std::string::npos) << pipe.err;
  c.env.erase("MSKB_PIPELINE");
  // So is MSKB_SHARE_INSTANCES, even in a run that would not share (one contender at a time).
  c.env["MSKB_SHARE_INSTANCES"] = "on";
  const Proc share = c.run({"run", "--task", "vector_add", "--checks-per-gpu", "1"});
  EXPECT_NE(share.code, 0) << share.err;
  EXPECT_EQ(std::count(share.err.begin(), share.err.end(), '\n'), 1) << share.err;
  EXPECT_NE(share.err.find("MSKB_SHARE_INSTANCES must be 0 or 1"), std::string::npos) << share.err;
  c.env.erase("MSKB_SHARE_INSTANCES");
  const Proc help = c.run({"run", "--help"});
  ASSERT_EQ(help.code, 0) << help.err;
  const std::size_t at = help.out.find("--timing-overlap");
  ASSERT_NE(at, std::string::npos) << help.out;
  EXPECT_NE(help.out.find("default auto: 3 when every contender is shipped", at), std::string::npos) << help.out;
}
