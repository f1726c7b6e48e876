// The trust boundary between the parent, the verifier and the candidate (docs/harness.md section 3): the private
// channel and its shared regions (sealed inputs cannot be written by the receiver), the planned
// event sequence, and evaluate() against a runner that forges, truncates, repeats or reorders.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mskb/util/channel.hpp"
#include "mskb/harness/evaluator.hpp"
#include "mskb/protocol/events.hpp"
#include "mskb/core/instance.hpp"
#include "mskb/protocol/request.hpp"
#include "mskb/core/registry.hpp"

using nlohmann::json;
using namespace mskb;

TEST(Channel, MessagesAndRegionsCrossAFork) {
  auto [a, b] = Channel::make_pair();
  SharedRegion in = SharedRegion::create("test-in", 4096);
  for (int i = 0; i < 4096; ++i) in.data()[i] = static_cast<unsigned char>(i * 7);
  in.seal();
  SharedRegion out = SharedRegion::create("test-out", 4096);
  const pid_t pid = ::fork();
  if (pid == 0) {
    // The child: a candidate. It cannot write the sealed input, can write the output.
    Message m;
    if (!b.recv(m) || m.fds.size() != 2) ::_exit(10);
    const int in_fd = m.fds[0].get();
    std::string problem;
    if (::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, in_fd, 0) != MAP_FAILED) problem += "sealed region mapped writable; ";
    if (::pwrite(in_fd, "x", 1, 0) == 1) problem += "sealed region written; ";
    SharedRegion ri = SharedRegion::map(std::move(m.fds[0]), 4096, false);
    SharedRegion ro = SharedRegion::map(std::move(m.fds[1]), 4096, true);
    for (int i = 0; i < 4096; ++i) ro.data()[i] = static_cast<unsigned char>(ri.data()[i] + 1);
    b.send({{"ok", problem.empty()}, {"problem", problem}, {"n", m.body.value("n", 0) + 1}});
    ::_exit(0);
  }
  { Channel gone = std::move(b); }  // the parent keeps only its own end: the child's exit is an end of file
  a.send({{"op", "instance"}, {"n", 41}}, {in.fd(), out.fd()});
  Message reply;
  ASSERT_TRUE(a.recv(reply));
  EXPECT_EQ(reply.body["n"], 42);
  EXPECT_TRUE(reply.body["ok"].get<bool>()) << reply.body["problem"];
  for (int i = 0; i < 4096; ++i) ASSERT_EQ(out.data()[i], static_cast<unsigned char>(i * 7 + 1)) << i;
  // The child exited: the next receive sees the end, not a message.
  int st = 0;
  ::waitpid(pid, &st, 0);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << st;
  Message none;
  EXPECT_FALSE(a.recv(none));
  // The creator's own mapping is read-only after sealing, and the region cannot grow.
  EXPECT_NE(::ftruncate(in.fd(), 8192), 0);
}

TEST(Channel, MalformedMessagesThrow) {
  auto [a, b] = Channel::make_pair();
  ASSERT_EQ(::send(b.fd(), "not json", 8, 0), 8);
  Message m;
  EXPECT_THROW(a.recv(m), std::runtime_error);
}

TEST(InstanceLayout, PlacesEveryBufferOnce) {
  const TaskSpec& s = get_task("vector_add");
  const Args a = make_inputs(s, s.paper.front(), Precision::bf16, 1);
  std::vector<std::size_t> elements;
  for (const Arg& x : a) elements.push_back(x.data.size());
  const InstanceLayout l = instance_layout(s, Precision::bf16, elements, 1024);
  std::size_t in_end = 0, out_end = 0;
  for (std::size_t i = 0; i < s.params.size(); ++i) {
    const BufferPlace& b = l.params[i];
    if (!b.buffer) continue;
    EXPECT_EQ(b.bytes, elements[i] * 2);
    EXPECT_EQ(b.uploaded, s.params[i].role == Role::in || s.params[i].role == Role::inplace);
    if (b.uploaded) {
      EXPECT_GE(b.in_offset, in_end);
      in_end = b.in_offset + b.bytes;
    }
    EXPECT_GE(b.out_offset, out_end);
    EXPECT_GE(b.guard_offset, b.out_offset + b.bytes);
    out_end = b.guard_offset + 2 * 1024;
  }
  EXPECT_LE(in_end, l.input_bytes);
  EXPECT_LE(out_end, l.output_bytes);
  // The encoded inputs are the rounded values, in bf16 bits.
  std::vector<unsigned char> region(l.input_bytes);
  encode_inputs(s, Precision::bf16, a, l, region.data());
  for (std::size_t i = 0; i < s.params.size(); ++i)
    if (l.params[i].uploaded) {
      uint16_t bits;
      std::memcpy(&bits, region.data() + l.params[i].in_offset + 2 * 5, 2);
      EXPECT_EQ(static_cast<double>(bf16_to_float(bits)), a[i].data[5]);
    }
}

namespace {
RunRequest two_shape_request() {
  RunRequest r;
  r.checks = {{Shape{{"N", 64}}, mskb::Sweep::paper, {1, 2, 3}}, {Shape{{"N", 128}}, mskb::Sweep::heldout, {1, 2}}};
  r.timings = {{Shape{{"N", 64}}, mskb::Sweep::paper, 3}};
  return r;
}
RunnerEvent ev(const char* kind, int64_t n, const char* sweep, uint64_t seed, const char* disp = "passed") {
  json e = {{"event", kind}, {"shape", json{{"N", n}}}, {"sweep", sweep}, {"seed", seed}, {"shape_str", "N=" + std::to_string(n)}};
  if (std::string(kind) == "check") e["disposition"] = disp;
  return runner_event(e).value();
}
}  // namespace

TEST(EventSequence, ThePlannedWalkPasses) {
  const RunRequest r = two_shape_request();
  const std::vector<RunnerEvent> ok = {ev("check", 64, "paper", 1), ev("check", 64, "paper", 2), ev("check", 64, "paper", 3),
                                ev("timing", 64, "paper", 3), ev("check", 128, "heldout", 1), ev("check", 128, "heldout", 2)};
  EXPECT_EQ(check_event_sequence(r, ok, true), "");
  // A failed check ends its shape; no timing after a failure.
  const std::vector<RunnerEvent> failed = {ev("check", 64, "paper", 1, "wrong_result"), ev("check", 128, "heldout", 1),
                                    ev("check", 128, "heldout", 2)};
  EXPECT_EQ(check_event_sequence(r, failed, true), "");
  // A crash part-way (no done): a prefix is fine, the crash decides.
  EXPECT_EQ(check_event_sequence(r, {ok[0], ok[1]}, false), "");
}

TEST(EventSequence, ForgedTruncatedRepeatedReorderedAreRejected) {
  const RunRequest r = two_shape_request();
  const std::vector<RunnerEvent> ok = {ev("check", 64, "paper", 1), ev("check", 64, "paper", 2), ev("check", 64, "paper", 3),
                                ev("timing", 64, "paper", 3), ev("check", 128, "heldout", 1), ev("check", 128, "heldout", 2)};
  EXPECT_NE(check_event_sequence(r, {}, true).find("done after 0 of 5"), std::string::npos);  // zero checks, then done
  EXPECT_NE(check_event_sequence(r, {ok[0], ok[1]}, true), "");                                // truncated, then done
  std::vector<RunnerEvent> repeated = ok;
  repeated.insert(repeated.begin() + 1, ok[0]);
  EXPECT_NE(check_event_sequence(r, repeated, true).find("unexpected report"), std::string::npos);
  std::vector<RunnerEvent> reordered = ok;
  std::swap(reordered[0], reordered[1]);
  EXPECT_NE(check_event_sequence(r, reordered, true), "");
  std::vector<RunnerEvent> extra = ok;
  extra.push_back(ok.back());
  EXPECT_NE(check_event_sequence(r, extra, true).find("after the planned sequence"), std::string::npos);
  std::vector<RunnerEvent> no_timing = ok;
  no_timing.erase(no_timing.begin() + 3);
  EXPECT_NE(check_event_sequence(r, no_timing, true), "");
  std::vector<RunnerEvent> wrong_seed = ok;
  wrong_seed[1].seed = 7;
  EXPECT_NE(check_event_sequence(r, wrong_seed, true), "");
  // A timing for a shape that failed is not the runner's.
  const std::vector<RunnerEvent> timed_after_failure = {ev("check", 64, "paper", 1), ev("check", 64, "paper", 2),
                                                 ev("check", 64, "paper", 3, "wrong_result"), ev("timing", 64, "paper", 3)};
  EXPECT_NE(check_event_sequence(r, timed_after_failure, true), "");
}

namespace {
ContenderResult forged(const std::string& mode) {
  ::setenv("FORGE_MODE", mode.c_str(), 1);
  EvalOptions o;
  o.runner = FORGING_RUNNER;
  o.ceilings = {4000, 60, 700};
  return evaluate(get_task("vector_add"), Precision::fp32, "kernel", "k.cu", "/nonexistent.so", o);
}
}  // namespace

TEST(Evaluate, OnlyTheRunnersOwnCompleteReportPasses) {
  const ContenderResult honest = forged("honest");
  EXPECT_EQ(honest.disposition, mskb::Disposition::passed) << honest.message;
  EXPECT_EQ(honest.checks_passed, honest.checks_total);
  for (const char* mode : {"no_token", "wrong_token", "zero_checks", "truncate", "repeat", "reorder", "extra", "forged_line"}) {
    const ContenderResult r = forged(mode);
    EXPECT_EQ(r.disposition, mskb::Disposition::harness_error) << mode << ": " << r.message;
    EXPECT_EQ(r.message.rfind("harness_error: ", 0), 0u) << mode << ": " << r.message;
  }
}

// The sandbox level and the runner's notes (how the evaluation ran: CUDA IPC unavailable, ...)
// reach the result and survive its JSON, without changing the verdict.
TEST(Evaluate, SandboxLevelAndNotesReachTheResult) {
  const ContenderResult r = forged("notes");
  EXPECT_EQ(r.disposition, mskb::Disposition::passed) << r.message;
  EXPECT_EQ(r.sandbox, "landlock-7+seccomp");
  ASSERT_EQ(r.notes.count("ipc"), 1u);
  EXPECT_EQ(r.notes.at("ipc").rfind("GPU comparisons and device inputs went through the host", 0), 0u);
  const ContenderResult back = result_from_json(result_to_json(r));
  EXPECT_EQ(back.notes, r.notes);
  EXPECT_EQ(back.sandbox, r.sandbox);
  EXPECT_TRUE(forged("honest").notes.empty());
}

TEST(Evaluate, EveryShapeHasTwoSeedsAndTheTimingPartTheLastTwo) {
  // The honest forger echoes the plan: look at the request it was given.
  ::setenv("FORGE_MODE", "honest", 1);
  EvalOptions o;
  o.runner = FORGING_RUNNER;
  o.seeds = 1;
  o.timed_sweeps = {Sweep::paper, Sweep::large};
  o.work_dir = ::testing::TempDir() + "/two-seeds";
  o.ceilings = {4000, 60, 700};
  evaluate(get_task("vector_add"), Precision::fp32, "kernel", "k.cu", "/nonexistent.so", o);
  std::ifstream in(o.work_dir + "/request.json");
  const RunRequest all = json::parse(in).get<RunRequest>();
  for (const CheckItem& c : all.checks) EXPECT_GE(c.seeds.size(), 2u) << c.sweep << " " << c.shape.str();
  o.part = Part::timing;
  o.work_dir = ::testing::TempDir() + "/timing-part";
  evaluate(get_task("vector_add"), Precision::fp32, "kernel", "k.cu", "/nonexistent.so", o);
  std::ifstream in2(o.work_dir + "/request.json");
  const RunRequest timing = json::parse(in2).get<RunRequest>();
  for (const CheckItem& c : timing.checks) {
    EXPECT_EQ(c.seeds.size(), 2u);
    EXPECT_EQ(c.seeds.back(), c.sweep == Sweep::large ? 2u : 2u);
  }
  o.part = Part::checks;
  o.work_dir = ::testing::TempDir() + "/checks-part";
  evaluate(get_task("vector_add"), Precision::fp32, "kernel", "k.cu", "/nonexistent.so", o);
  std::ifstream in3(o.work_dir + "/request.json");
  const RunRequest checks = json::parse(in3).get<RunRequest>();
  for (const CheckItem& c : checks.checks) EXPECT_NE(c.sweep, Sweep::large);  // both large seeds are in the timing part
}

TEST(TooFast, JudgedOnFlopsAtTheTensorPeakAsWellAsBytes) {
  const Ceilings c{4000, 60, 800};
  // A 4096^3 FP32 GEMM: 201 MB of DRAM traffic (50 us) but 137 GFLOP (172 us at 800 TFLOP/s).
  const Cost gemm{3.0 * 4096 * 4096 * 4, 2.0 * 4096 * 4096 * 4096, false};
  const double dram = roofline_us(gemm.bytes, 0, false, c), flops = flop_floor_us(gemm, c);
  EXPECT_NEAR(flops, 2.0 * 4096.0 * 4096 * 4096 / 800e12 * 1e6, 1e-6);
  TimingStats replay;  // a replayed result: above half the DRAM time, far below the FLOP time
  replay.median_us = 40;
  replay.n = 50;
  EXPECT_EQ(judge_timing(replay, dram, TimingPolicy{}), mskb::Disposition::passed);  // bytes alone would not see it
  EXPECT_EQ(judge_timing(replay, dram, TimingPolicy{}, flops), mskb::Disposition::too_fast);
  TimingStats fast = replay;  // 1.4x past the tensor peak (a Strassen level, a better kernel): possible
  fast.median_us = flops / 1.4;
  EXPECT_EQ(judge_timing(fast, dram, TimingPolicy{}, flops), mskb::Disposition::passed);
  fast.median_us = flops / 1.5;
  EXPECT_EQ(judge_timing(fast, dram, TimingPolicy{}, flops), mskb::Disposition::too_fast);
  TimingStats real = replay;
  real.median_us = 2700;
  EXPECT_EQ(judge_timing(real, dram, TimingPolicy{}, flops), mskb::Disposition::passed);
}

TEST(RunnerEvents, OneParserForEveryReportLine) {
  EXPECT_FALSE(parse_runner_event("not json"));
  EXPECT_FALSE(parse_runner_event("[1, 2]"));
  EXPECT_FALSE(parse_runner_event(R"({"event": 3})"));
  const auto check = parse_runner_event(
      R"({"event":"check","token":"t1","sweep":"heldout","shape":{"N":8},"shape_str":"N=8","seed":2,"disposition":"wrong_result","gap_us":5.5,"call_us":10})");
  ASSERT_TRUE(check);
  EXPECT_EQ(check->kind, EventKind::check);
  EXPECT_EQ(check->token, "t1");
  EXPECT_EQ(check->sweep, "heldout");
  EXPECT_EQ(check->shape_str, "N=8");
  EXPECT_EQ(check->seed, std::optional<uint64_t>(2));
  EXPECT_EQ(check->disposition, Disposition::wrong_result);
  EXPECT_DOUBLE_EQ(check->gap_us, 5.5);
  EXPECT_EQ(check->call_us, std::optional<double>(10));
  // A disposition that is none reads harness_error; a seed of the wrong type is absent, not a throw.
  const auto odd = parse_runner_event(R"({"event":"fatal","disposition":"made_up","message":"boom","seed":"x"})");
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->kind, EventKind::fatal);
  EXPECT_EQ(odd->disposition, Disposition::harness_error);
  EXPECT_EQ(odd->message, "boom");
  EXPECT_FALSE(odd->seed);
  const auto timing = parse_runner_event(R"({"event":"timing","time_us":{"median":12.5,"n":40},"after_timing":"too_fast"})");
  ASSERT_TRUE(timing && timing->time);
  EXPECT_DOUBLE_EQ(timing->time->median_us, 12.5);
  EXPECT_EQ(timing->time->n, 40);
  EXPECT_EQ(timing->after_timing, Disposition::too_fast);
  const auto phase = parse_runner_event(R"({"event":"phase","phase":"call","shape":"N=8","seed":1,"timeout_s":7})");
  ASSERT_TRUE(phase);
  EXPECT_EQ(phase->kind, EventKind::phase);
  EXPECT_EQ(phase->shape_str, "N=8");
  EXPECT_DOUBLE_EQ(phase->timeout_s, 7.0);
  EXPECT_EQ(parse_runner_event(R"({"event":"log"})")->kind, EventKind::other);
}

// The runner writes its events with the same types the parent reads them with (mskb/protocol/events.hpp):
// every kind the verifier, the candidate's profile mode and the device query emit, through a pipe, comes back
// as written, token included.
TEST(RunnerEvents, WrittenAndReadWithTheSameTypes) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const Shape shape{{"M", 64}, {"N", 8}};
  {
    const EventWriter w(fds[1], "tok");
    w.phase("generate", shape, 2, 120.5);
    CheckEvent c{shape, Sweep::heldout, 2, Disposition::wrong_result, "gpu_fp64", 5.5, 10};
    c.detail = {{"message", "1 of 512 elements outside tolerance"}};
    w.emit(c);
    TimingStats t;
    t.median_us = 12.5;
    t.n = 40;
    w.emit(TimingEvent{shape, Sweep::paper, 2, t, Disposition::too_fast, {{"message", "m"}}, {1, 4}, 0.3});
    DeviceEvent d;
    d.name = "H200";
    d.uuid = "GPU-1";
    d.device_count = 2;
    d.ceilings = DeviceEvent::Ceilings{};
    d.ceilings->dram_bandwidth_gbs = 4000;
    w.emit(d);
    w.emit(ProfiledEvent{shape, 7.25});
    w.emit(FatalEvent{Disposition::out_of_memory, "cudaMalloc", nullptr});
    w.emit(NoteEvent{"ipc", "why"});
    w.emit(DoneEvent{});
  }
  ::close(fds[1]);
  std::string all;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) all.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  std::vector<RunnerEvent> ev;
  for (std::size_t at = 0, nl; (nl = all.find('\n', at)) != std::string::npos; at = nl + 1) {
    const auto e = parse_runner_event(all.substr(at, nl - at));
    ASSERT_TRUE(e) << all.substr(at, nl - at);
    EXPECT_EQ(e->token, "tok");
    ev.push_back(*e);
  }
  ASSERT_EQ(ev.size(), 8u);
  EXPECT_EQ(ev[0].kind, EventKind::phase);
  EXPECT_EQ(ev[0].phase, "generate");
  EXPECT_EQ(ev[0].shape_str, "M=64,N=8");
  EXPECT_EQ(ev[0].seed, std::optional<uint64_t>(2));
  EXPECT_DOUBLE_EQ(ev[0].timeout_s, 120.5);
  EXPECT_EQ(ev[1].kind, EventKind::check);
  EXPECT_EQ(ev[1].sweep, "heldout");
  EXPECT_EQ(ev[1].shape_str, "M=64,N=8");
  EXPECT_EQ(ev[1].body.at("shape").get<Shape>(), shape);
  EXPECT_EQ(ev[1].disposition, Disposition::wrong_result);
  EXPECT_EQ(ev[1].body.value("reference", ""), "gpu_fp64");
  EXPECT_DOUBLE_EQ(ev[1].gap_us, 5.5);
  EXPECT_EQ(ev[1].call_us, std::optional<double>(10));
  EXPECT_EQ(ev[1].body["detail"].value("message", ""), "1 of 512 elements outside tolerance");
  // The planned walk accepts the check the writer sent (the parent's plan and the runner's line agree).
  RunRequest req;
  req.checks.push_back({shape, Sweep::heldout, {2}});
  EXPECT_EQ(check_event_sequence(req, {ev[1]}, true), "");
  EXPECT_EQ(ev[2].kind, EventKind::timing);
  ASSERT_TRUE(ev[2].time);
  EXPECT_DOUBLE_EQ(ev[2].time->median_us, 12.5);
  EXPECT_EQ(ev[2].time->n, 40);
  EXPECT_EQ(ev[2].after_timing, Disposition::too_fast);
  EXPECT_EQ(ev[2].body["verified_samples"], json({1, 4}));
  EXPECT_EQ(ev[3].kind, EventKind::device);
  const DeviceEvent back = ev[3].body.get<DeviceEvent>();
  EXPECT_EQ(back.name, "H200");
  EXPECT_EQ(back.uuid, "GPU-1");
  EXPECT_EQ(back.device_count, 2);
  ASSERT_TRUE(back.ceilings);
  EXPECT_DOUBLE_EQ(back.ceilings->dram_bandwidth_gbs, 4000.0);
  EXPECT_EQ(ev[4].kind, EventKind::profiled);
  EXPECT_EQ(ev[4].call_us, std::optional<double>(7.25));
  EXPECT_EQ(ev[5].kind, EventKind::fatal);
  EXPECT_EQ(ev[5].disposition, Disposition::out_of_memory);
  EXPECT_EQ(ev[5].message, "cudaMalloc");
  EXPECT_EQ(ev[6].kind, EventKind::other);
  EXPECT_EQ(ev[6].event, "note");
  EXPECT_EQ(ev[6].body.value("key", ""), "ipc");
  EXPECT_EQ(ev[6].body.value("text", ""), "why");
  EXPECT_EQ(ev[7].kind, EventKind::done);
}

TEST(Requests, SingleShapeRequestChecksSeedOneAndTimesOnlyInEvaluateMode) {
  const TaskSpec& spec = get_task("vector_add");
  const Shape shape = spec.paper.front();
  const RunRequest timed = single_shape_request(spec, Precision::bf16, "/k.so", shape, RunMode::evaluate);
  EXPECT_EQ(timed.mode, RunMode::evaluate);
  EXPECT_EQ(timed.symbol, spec.symbol(Precision::bf16));
  ASSERT_EQ(timed.checks.size(), 1u);
  EXPECT_EQ(timed.checks[0].sweep, Sweep::paper);
  EXPECT_EQ(timed.checks[0].seeds, std::vector<uint64_t>{1});
  ASSERT_EQ(timed.timings.size(), 1u);
  EXPECT_EQ(timed.timings[0].seed, 1u);
  const RunRequest profiled = single_shape_request(spec, Precision::fp32, "/k.so", shape, RunMode::profile);
  EXPECT_EQ(json(profiled)["mode"], "profile");
  EXPECT_TRUE(profiled.timings.empty());
}

// A replay that keeps its last output and copies it (2N elements of traffic for vector_add's 3N) is
// 1.5x faster than the DRAM time: too_fast once the working set is far past the L2, where no
// cache can explain it; below that (or without a margin, as in reports made before it) it passes.
TEST(TooFast, ReplayPastTheCacheBeyondTheMargin) {
  const TimingPolicy p;
  const double dram = 1000;  // us: the shape's minimum traffic at the measured bandwidth
  TimingStats t;
  t.n = 100;
  t.median_us = dram / 1.5;  // a third of the traffic saved
  EXPECT_EQ(judge_timing(t, dram, p, 0, /*beyond_cache=*/true), mskb::Disposition::too_fast);
  EXPECT_EQ(judge_timing(t, dram, p, 0, /*beyond_cache=*/false), mskb::Disposition::passed);
  t.median_us = dram / 1.02;  // the fastest honest kernel measured past 4x the L2
  EXPECT_EQ(judge_timing(t, dram, p, 0, true), mskb::Disposition::passed);
  t.median_us = dram / (p.replay_dram_margin * 1.01);
  EXPECT_EQ(judge_timing(t, dram, p, 0, true), mskb::Disposition::too_fast);
  TimingPolicy old = p;
  old.replay_dram_margin = 0;  // a policy read from a report without the margin
  t.median_us = dram / 1.5;
  EXPECT_EQ(judge_timing(t, dram, old, 0, true), mskb::Disposition::passed);
}
