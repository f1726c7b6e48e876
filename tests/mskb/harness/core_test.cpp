#include <gtest/gtest.h>

#include <sched.h>
#include <dlfcn.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

#include "mskb/util/gpu_sharing.hpp"
#include "mskb/core/instance.hpp"
#include "mskb/util/parallel.hpp"
#include "mskb/util/process.hpp"
#include "mskb/protocol/request.hpp"
#include "mskb/harness/evaluator.hpp"
#include "mskb/harness/settings.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/util/sha256.hpp"
#include "mskb/harness/suite.hpp"

using namespace mskb;
namespace fs = std::filesystem;

TEST(Shape, LookupAndString) {
  Shape s{{"M", 3}, {"N", 5}};
  EXPECT_EQ(s["N"], 5);
  EXPECT_TRUE(s.has("M"));
  EXPECT_FALSE(s.has("K"));
  EXPECT_THROW((void)s["K"], std::out_of_range);
  EXPECT_EQ(s.str(), "M=3,N=5");
}

TEST(Rng, DeterministicAndInRange) {
  Rng a(42), b(42), c(43);
  for (int i = 0; i < 1000; ++i) {
    const double x = a.uniform(-2, 3);
    EXPECT_EQ(x, b.uniform(-2, 3));
    EXPECT_GE(x, -2);
    EXPECT_LT(x, 3);
    const int64_t k = c.uniform_int(-3, 3);
    EXPECT_GE(k, -3);
    EXPECT_LE(k, 3);
  }
}

TEST(Bf16, RoundToNearestEven) {
  EXPECT_EQ(bf16_bits(1.0f), 0x3f80);
  EXPECT_EQ(bf16_to_float(0x3f80), 1.0f);
  // 1 + 2^-8 is exactly halfway between bf16 1.0 and 1 + 2^-7: ties to even (1.0).
  EXPECT_EQ(bf16_bits(1.0f + 0x1p-8f), 0x3f80);
  // 1 + 3*2^-8 is halfway between 1+2^-7 (odd) and 1+2^-6 (even): rounds up.
  EXPECT_EQ(bf16_bits(1.0f + 3 * 0x1p-8f), 0x3f82);
  EXPECT_TRUE(std::isnan(bf16_to_float(bf16_bits(NAN))));
  EXPECT_EQ(round_to(Precision::bf16, 1.00390625), 1.0);
  EXPECT_EQ(round_to(Precision::fp32, 0.1), static_cast<double>(0.1f));
}

TEST(Compare, NanUnwrittenAndTolerance) {
  CompareResult r;
  compare_buffer("C", {1.0, 2.0001, NAN, 4.0}, {0, 0, 0, 1}, {1.0, 2.0, 3.0, 4.0}, {0.0, 1e-3}, false, r);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.checked, 4u);
  EXPECT_EQ(r.nans, 1u);
  EXPECT_EQ(r.unwritten, 1u);
  EXPECT_EQ(r.mismatches, 2u);  // the NaN and the unwritten element; 2.0001 is within 1e-3
  ASSERT_EQ(r.first_bad.size(), 2u);
  EXPECT_EQ(r.first_bad[0], 2u);
  CompareResult exact;
  compare_buffer("idx", {1, 2, 3}, {}, {1, 2, 4}, {1.0, 1.0}, true, exact);
  EXPECT_FALSE(exact.ok);  // indices are exact whatever the tolerance
}

// The runner compares outputs straight from their device bytes: the result must be exactly what
// decoding them to doubles (with the poison mask) and compare_buffer give, in every element type,
// over several chunks, with NaNs, infinities, unwritten elements and out-of-tolerance values.
TEST(Compare, EncodedBytesMatchDecodedComparison) {
  const std::size_t n = (std::size_t{1} << 21) + 12345;  // three chunks, the last partial
  Rng rng(7);
  HostData want(n);
  rng.fill_uniform(want, -4.0, 4.0);
  for (Elem elem : {Elem::real, Elem::i32})
    for (Precision p : {Precision::fp32, Precision::bf16}) {
      if (elem == Elem::i32 && p == Precision::bf16) continue;
      const std::size_t eb = elem_bytes(elem, p);
      HostData ref = want;
      if (elem == Elem::i32)
        for (auto& x : ref) x = std::nearbyint(x * 1000);
      std::vector<unsigned char> bytes(n * eb);
      std::vector<double> got(n);
      std::vector<unsigned char> mask(n, 0);
      for (std::size_t i = 0; i < n; ++i) {
        double g = round_elem(elem, p, ref[i] * (1 + 1e-4 * static_cast<double>(i % 7)));  // some outside rtol below
        if (i % 100003 == 5 && elem != Elem::i32) g = NAN;
        if (i % 200003 == 9 && elem != Elem::i32) g = i % 2 ? INFINITY : -INFINITY;
        unsigned char* dst = bytes.data() + i * eb;
        if (i % 150001 == 11) {  // never written: poison bytes
          std::memset(dst, 0xFF, eb);
        } else if (elem == Elem::i32) {
          const int32_t x = static_cast<int32_t>(g);
          std::memcpy(dst, &x, 4);
        } else if (eb == 4) {
          const float x = static_cast<float>(g);
          std::memcpy(dst, &x, 4);
        } else {
          const uint16_t x = bf16_bits(static_cast<float>(g));
          std::memcpy(dst, &x, 2);
        }
        // The decoded view, as the runner used to build it.
        if (elem == Elem::i32) {
          int32_t x;
          std::memcpy(&x, dst, 4);
          got[i] = x;
        } else if (eb == 4) {
          float x;
          std::memcpy(&x, dst, 4);
          got[i] = x;
        } else {
          uint16_t x;
          std::memcpy(&x, dst, 2);
          got[i] = bf16_to_float(x);
        }
      }
      // The runner's rule: an element whose bytes are all the poison byte was never written (an i32
      // output of -1 reads as unwritten: no task has one).
      std::size_t unwritten = 0;
      for (std::size_t i = 0; i < n; ++i) {
        bool all = true;
        for (std::size_t k = 0; k < eb; ++k) all = all && bytes[i * eb + k] == 0xFF;
        mask[i] = all ? 1 : 0;
        unwritten += mask[i];
      }
      const Tolerance tol{1e-6, 3e-4};
      for (bool poisoned : {true, false}) {
        CompareResult a, b;
        compare_buffer("Y", got, poisoned ? mask : std::vector<unsigned char>{}, ref, tol, elem == Elem::i32, a);
        compare_encoded("Y", bytes.data(), bytes.size(), elem, p, poisoned ? 0xFF : -1, ref, tol, elem == Elem::i32, b);
        SCOPED_TRACE(std::string(to_string(p)) + (elem == Elem::i32 ? " i32" : " real") + (poisoned ? " poisoned" : ""));
        EXPECT_FALSE(a.ok);
        EXPECT_EQ(a.ok, b.ok);
        EXPECT_EQ(a.checked, b.checked);
        EXPECT_EQ(a.checked, n);
        EXPECT_EQ(a.mismatches, b.mismatches);
        EXPECT_GT(a.mismatches, 10u);
        EXPECT_EQ(a.nans, b.nans);
        EXPECT_EQ(a.unwritten, b.unwritten);
        EXPECT_EQ(b.unwritten, poisoned ? unwritten : 0u);
        EXPECT_GT(unwritten, 10u);
        EXPECT_EQ(a.max_abs_err, b.max_abs_err);
        EXPECT_EQ(a.max_rel_err, b.max_rel_err);
        EXPECT_EQ(a.param, b.param);
        EXPECT_EQ(a.first_bad, b.first_bad);
        EXPECT_EQ(a.first_bad_got.size(), b.first_bad_got.size());
      }
    }
  std::vector<unsigned char> short_bytes(8);
  CompareResult r;
  EXPECT_THROW(compare_encoded("Y", short_bytes.data(), short_bytes.size(), Elem::real, Precision::fp32, -1, want, {0, 0}, false, r),
               std::logic_error);
}

TEST(Protocol, RequestRoundTripKeepsShapeOrder) {
  RunRequest r;
  r.task = "matrix_mul";
  r.precision = Precision::bf16;
  r.checks.push_back({Shape{{"M", 64}, {"N", 2048}, {"K", 4096}}, mskb::Sweep::paper, {1, 2, 3}});
  r.timings.push_back({Shape{{"M", 64}, {"N", 2048}, {"K", 4096}}, mskb::Sweep::paper, 3});
  r.timing.max_time_s = 0.5;
  const RunRequest back = nlohmann::json::parse(nlohmann::json(r).dump()).get<RunRequest>();
  EXPECT_EQ(back.task, "matrix_mul");
  EXPECT_EQ(back.precision, Precision::bf16);
  ASSERT_EQ(back.checks.size(), 1u);
  EXPECT_EQ(back.checks[0].shape.str(), "M=64,N=2048,K=4096");
  EXPECT_EQ(back.checks[0].seeds, (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(back.timings[0].seed, 3u);
  EXPECT_DOUBLE_EQ(back.timing.max_time_s, 0.5);
  // No lane lock and no thread cap unless set; both travel when set.
  EXPECT_EQ(back.gpu_lock, "");
  EXPECT_EQ(back.gpu_lock_log, "");
  EXPECT_FALSE(back.load_before_lock);
  EXPECT_EQ(back.host_threads, 0);
  r.gpu_lock = "/tmp/mskb-1/locks/gpu-0.lock";
  r.gpu_lock_log = "/tmp/holds.log";
  r.load_before_lock = true;
  r.host_threads = 7;
  const RunRequest with_lock = nlohmann::json::parse(nlohmann::json(r).dump()).get<RunRequest>();
  EXPECT_EQ(with_lock.gpu_lock, "/tmp/mskb-1/locks/gpu-0.lock");
  EXPECT_EQ(with_lock.gpu_lock_log, "/tmp/holds.log");
  EXPECT_TRUE(with_lock.load_before_lock);
  EXPECT_EQ(with_lock.host_threads, 7);
  // Where instances live and are compared: the defaults (GPU instances from 2^22, host-made
  // instances compared on the GPU from 2^22 too), and set values, travel.
  EXPECT_DOUBLE_EQ(back.gpu_instance_min_complexity, 4194304.0);
  EXPECT_DOUBLE_EQ(back.gpu_compare_min_complexity, 4194304.0);
  r.gpu_instance_min_complexity = 0;
  r.gpu_compare_min_complexity = 1e6;
  const RunRequest moved = nlohmann::json::parse(nlohmann::json(r).dump()).get<RunRequest>();
  EXPECT_DOUBLE_EQ(moved.gpu_instance_min_complexity, 0.0);
  EXPECT_DOUBLE_EQ(moved.gpu_compare_min_complexity, 1e6);
  // GPU instances' inputs device to device: on unless turned off, and either travels.
  EXPECT_TRUE(back.device_inputs);
  r.device_inputs = false;
  EXPECT_FALSE(nlohmann::json::parse(nlohmann::json(r).dump()).get<RunRequest>().device_inputs);
}

// MSKB_DEVICE_INPUTS turns the device-to-device inputs on (1) or off (0) where the options leave it
// unset; anything else is an error naming the variable; the options win over the environment. The
// environment is read once, into the options' settings (mskb/harness/settings.hpp).
TEST(Protocol, DeviceInputsFromOptionsOrEnvironment) {
  const TaskSpec& t = get_task("matrix_copy");
  EvalOptions opt;
  ::unsetenv("MSKB_DEVICE_INPUTS");
  opt.settings = Settings::from_environment();
  EXPECT_TRUE(evaluation_request(t, Precision::fp32, "/k.so", opt).device_inputs);
  ::setenv("MSKB_DEVICE_INPUTS", "0", 1);
  opt.settings = Settings::from_environment();
  EXPECT_FALSE(evaluation_request(t, Precision::fp32, "/k.so", opt).device_inputs);
  ::setenv("MSKB_DEVICE_INPUTS", "1", 1);
  opt.settings = Settings::from_environment();
  EXPECT_TRUE(evaluation_request(t, Precision::fp32, "/k.so", opt).device_inputs);
  opt.device_inputs = false;
  EXPECT_FALSE(evaluation_request(t, Precision::fp32, "/k.so", opt).device_inputs);
  opt.device_inputs.reset();
  ::setenv("MSKB_DEVICE_INPUTS", "yes", 1);
  try {
    opt.settings = Settings::from_environment();
    (void)evaluation_request(t, Precision::fp32, "/k.so", opt);
    ADD_FAILURE() << "MSKB_DEVICE_INPUTS=yes accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "MSKB_DEVICE_INPUTS must be 0 or 1");
  }
  ::unsetenv("MSKB_DEVICE_INPUTS");
}

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(std::string(1000, 'a')), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

namespace {
// Per process: two runs of this test at once (two checkouts, ctest twice) must not share files.
std::string tmp(const std::string& name) {
  return (fs::temp_directory_path() / ("mskb-core-test-" + std::to_string(::getpid()) + "-" + name)).string();
}
}  // namespace

TEST(Process, LinesExitCodeAndLog) {
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "echo hello-log; echo '{\"a\":1}' >&3; echo '{\"a\":2}' >&3; exit 7"};
  o.log_path = tmp("log1");
  std::vector<std::string> lines;
  const ProcessResult r = run_process(o, [&](const std::string& l) {
    lines.push_back(l);
    return 0.0;
  });
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_FALSE(r.signaled);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(lines, (std::vector<std::string>{"{\"a\":1}", "{\"a\":2}"}));
  EXPECT_NE(r.log_tail.find("hello-log"), std::string::npos);
}

TEST(Process, WatchdogKillsAHangAndItsChildren) {
  SpawnOptions o;
  // The child re-arms the watchdog to 0.5 s, then hangs (with a grandchild that also hangs).
  o.argv = {"/bin/sh", "-c", "echo 'arm' >&3; sleep 100 & sleep 100"};
  o.log_path = tmp("log2");
  o.initial_timeout_s = 30;
  const ProcessResult r = run_process(o, [](const std::string&) { return 0.5; });
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.seconds, 10.0);
}

TEST(Process, CrashIsASignal) {
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "kill -SEGV $$"};
  o.log_path = tmp("log3");
  const ProcessResult r = run_process(o, [](const std::string&) { return 0.0; });
  EXPECT_TRUE(r.signaled);
  EXPECT_EQ(r.signal, 11);
}

TEST(Process, RunCommandCapturesOutputAndTimesOut) {
  std::string out;
  EXPECT_EQ(run_command({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, out), 3);
  EXPECT_NE(out.find("out"), std::string::npos);
  EXPECT_NE(out.find("err"), std::string::npos);
  std::string slow;
  EXPECT_EQ(run_command({"/bin/sh", "-c", "sleep 30"}, slow, 0.3), 124);
  std::string missing;
  EXPECT_EQ(run_command({"/nonexistent/tool"}, missing), 127);
}

TEST(GpuLanes, EveryVisibleGpuByDefaultAndParentListsHonoured) {
  EXPECT_EQ(mskb::gpu_lanes({}, 1, nullptr), (std::vector<std::string>{"0"}));
  EXPECT_EQ(mskb::gpu_lanes({}, 4, nullptr), (std::vector<std::string>{"0", "1", "2", "3"}));
  EXPECT_EQ(mskb::gpu_lanes({2, 0, 2}, 4, nullptr), (std::vector<std::string>{"2", "0"}));
  // Under CUDA_VISIBLE_DEVICES=5,7 ordinal 1 is physical GPU 7 (or a UUID): the child must get that.
  EXPECT_EQ(mskb::gpu_lanes({}, 2, "5,7"), (std::vector<std::string>{"5", "7"}));
  EXPECT_EQ(mskb::gpu_lanes({1}, 2, "GPU-aa,GPU-bb"), (std::vector<std::string>{"GPU-bb"}));
  EXPECT_EQ(mskb::gpu_lanes({}, 0, ""), (std::vector<std::string>{"0"}));
  EXPECT_THROW(mskb::gpu_lanes({2}, 2, nullptr), std::invalid_argument);
  EXPECT_THROW(mskb::gpu_lanes({-1}, 2, nullptr), std::invalid_argument);
}

TEST(ResultJson, RoundTripKeepsTimingsAndCounts) {
  mskb::ContenderResult r;
  r.task = "spmv_csr";
  r.precision = "bf16";
  r.contender = "vendor";
  r.kernel = "tasks/sparse/spmv_csr/vendor.cu";
  r.disposition = mskb::Disposition::passed;
  r.checks_passed = r.checks_total = 39;
  r.seconds = 12.5;
  mskb::ShapeTiming t;
  t.sweep = mskb::Sweep::large;
  t.shape.dims = {{"rows", 1 << 20}, {"cols", 2048}};
  t.complexity = 123456789;
  t.roofline_us = 17.25;
  t.time.median_us = 42.5;
  t.time.n = 77;
  t.disposition = mskb::Disposition::passed;
  r.timings.push_back(t);
  const mskb::ContenderResult b = mskb::result_from_json(nlohmann::json::parse(mskb::result_to_json(r).dump()));
  EXPECT_EQ(b.task, r.task);
  EXPECT_EQ(b.precision, r.precision);
  EXPECT_EQ(b.disposition, mskb::Disposition::passed);
  EXPECT_EQ(b.checks_total, 39);
  ASSERT_EQ(b.timings.size(), 1u);
  EXPECT_EQ(b.timings[0].shape.str(), t.shape.str());  // dimension order kept
  EXPECT_EQ(b.timings[0].complexity, 123456789u);
  EXPECT_DOUBLE_EQ(b.timings[0].time.median_us, 42.5);
  EXPECT_EQ(b.timings[0].time.n, 77);
}

TEST(Parallel, AvailableCpusFollowTheAffinityMask) {
  const int all = mskb::available_cpus();
  EXPECT_GE(all, 1);
  // In a child pinned to one CPU (as taskset or a Slurm job step would), the count is 1.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    int n = -1;
    if (sched_setaffinity(0, sizeof one, &one) == 0) n = mskb::available_cpus();
    (void)!::write(fds[1], &n, sizeof n);
    ::_exit(0);
  }
  int n = 0;
  ASSERT_EQ(::read(fds[0], &n, sizeof n), static_cast<ssize_t>(sizeof n));
  ::waitpid(pid, nullptr, 0);
  ::close(fds[0]);
  ::close(fds[1]);
  EXPECT_EQ(n, 1);
}

// The verifier's instance preparation (instance_queue.cu prepare_yielding) lowers its thread's priority;
// parallel_for's workers started from it must run at that priority too (they inherit it), while
// the thread that started the preparation keeps its own.
TEST(Parallel, LoweredPriorityReachesTheWorkersOnly) {
  const auto nice_of_this_thread = [] {
    errno = 0;
    return ::getpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)));
  };
  const int before = nice_of_this_thread();
  if (before >= 17) GTEST_SKIP() << "already at nice " << before;
  std::vector<int> seen;
  std::mutex m;
  int preparer = 0;
  std::thread t([&] {
    lower_thread_priority(2);
    preparer = nice_of_this_thread();
    const ParallelCap cap(2);
    parallel_for(
        64,
        [&](int64_t) {
          const int n = nice_of_this_thread();
          std::lock_guard<std::mutex> lock(m);
          seen.push_back(n);
        },
        1);
  });
  t.join();
  EXPECT_EQ(preparer, before + 2);
  ASSERT_EQ(seen.size(), 64u);
  for (int n : seen) EXPECT_EQ(n, before + 2);
  EXPECT_EQ(nice_of_this_thread(), before);  // the caller's thread is untouched
  lower_thread_priority(0);                  // no change asked: none made
  EXPECT_EQ(nice_of_this_thread(), before);
}

// The runner's own NVML entry is the one that appeared when it created its context; the others
// are any that were there before or came later (found by difference, not by PID).
TEST(GpuSharing, OwnEntryByDifferenceAndOthers) {
  EXPECT_EQ(appeared({10, 20}, {20, 30, 10}), (std::vector<uint64_t>{30}));
  EXPECT_EQ(appeared({}, {5, 5}), (std::vector<uint64_t>{5}));
  EXPECT_TRUE(appeared({7}, {7}).empty());
  EXPECT_EQ(others({30, 20, 10, 20}, {30}), (std::vector<uint64_t>{10, 20}));
  EXPECT_TRUE(others({30}, {30}).empty());
  EXPECT_EQ(others({3, 1}, {}), (std::vector<uint64_t>{1, 3}));
  const unsigned char b[16] = {0x24, 0xf9, 0x4d, 0x32, 0x63, 0x54, 0x6f, 0xca, 0xaf, 0xda, 0xa3, 0x47, 0x6e, 0x43, 0x6b, 0x00};
  EXPECT_EQ(uuid_string(b), "GPU-24f94d32-6354-6fca-afda-a3476e436b00");
}

// Without NVML (this machine, CI) the check reports "not known", never "alone".
TEST(GpuSharing, WithoutNvmlNothingIsKnown) {
  if (void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(lib);
    GTEST_SKIP() << "NVML present: covered by the GPU tests";
  }
  GpuSharing s("GPU-00000000-0000-0000-0000-000000000000");
  EXPECT_FALSE(s.known());
  s.context_created();
  EXPECT_FALSE(s.known());
  EXPECT_TRUE(s.others_now().empty());
}

TEST(Vocabulary, StringsRoundTripAndUnknownOnesAreNamed) {
  for (const mskb::Disposition d : {mskb::Disposition::passed, mskb::Disposition::rejected_static, mskb::Disposition::not_run})
    EXPECT_EQ(mskb::from_string<mskb::Disposition>(mskb::to_string(d)), d);
  EXPECT_EQ(mskb::to_string(mskb::Disposition::sanitizer_error), "sanitizer_error");
  EXPECT_FALSE(mskb::from_string<mskb::Disposition>("Passed"));
  EXPECT_EQ(nlohmann::json(mskb::Sweep::heldout), "heldout");
  EXPECT_EQ(nlohmann::json("large").get<mskb::Sweep>(), mskb::Sweep::large);
  try {
    mskb::parse_enum<mskb::Part>("both");
    ADD_FAILURE() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown evaluation part 'both' (valid: all, checks, timing)");
  }
  EXPECT_THROW(nlohmann::json("evaluat").get<mskb::RunMode>(), std::invalid_argument);
  EXPECT_EQ(mskb::sweeps_named("all"), (std::vector<mskb::Sweep>{mskb::Sweep::paper, mskb::Sweep::heldout, mskb::Sweep::random, mskb::Sweep::large}));
  EXPECT_THROW(mskb::sweeps_named("papers"), std::invalid_argument);
  EXPECT_EQ(mskb::contender_kind("baseline"), mskb::ContenderKind::baseline);
  EXPECT_EQ(mskb::contender_kind("baseline/remeasure"), mskb::ContenderKind::baseline);
  EXPECT_EQ(mskb::contender_kind("wrong/off_by_one"), mskb::ContenderKind::wrong);
  EXPECT_EQ(mskb::contender_kind("adversarial/forge"), mskb::ContenderKind::adversarial);
  EXPECT_EQ(mskb::contender_kind("my_kernel"), mskb::ContenderKind::candidate);
  EXPECT_TRUE(mskb::is_correct(mskb::Disposition::noisy));
  EXPECT_FALSE(mskb::is_correct(mskb::Disposition::unsynced));
}
