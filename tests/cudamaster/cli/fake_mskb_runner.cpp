// Fake mskb-runner for the agent-loop tests (set through MSKB_RUNNER): speaks the runner's
// protocol (mskb/protocol/request.hpp, events.hpp: a request file, JSON-lines events on a report fd) without a GPU.
// The "library" it is given is the kernel source (the fake nvcc copies it), and the source's
// markers (support/fake_markers.hpp) decide the verdict and the timings. FAKE_RUNNER_LOG, when set, gets
// one line per evaluation (the library path, " timings=<timed shapes>", then " gpu=N" when
// CUDA_VISIBLE_DEVICES is set), so
// tests can count evaluations and see where they ran. FAKE_GPUS sets the GPU count it reports;
// FAKE_GPUS=0 makes every mode fail as the real runner does on a machine without a GPU.
// FAKE_RUNNER_TRACE, when set, gets one JSON line per evaluation: the request's library, task,
// precision, gpu_lock, host_threads, load_before_lock and timing target_noise, its nice value, the timed shapes, CUDA_VISIBLE_DEVICES, and the runner's
// start and end (steady clock, ns; comparable across processes). With a gpu_lock and timed shapes
// it holds that lock exclusive (mskb/util/gpu_lock.hpp) for FAKE_RUNNER_TIMING_MS (default 20)
// before its timings, as the real runner does around a timing, and records that hold too.
// With an instance_share_dir in the request, every check takes its turn at the instance
// (mskb/core/instance_share.hpp, keyed as the real runner keys it: task, precision, shape, seed)
// and publishes, when it makes it, an instance whose values derive from the key; one it finds is
// compared with those values. The trace then has the share's dir and consumers, and the
// instances it made, found and found wrong.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/core/instance_share.hpp"
#include "mskb/util/gpu_lock.hpp"
#include "support/fake_markers.hpp"

using nlohmann::json;

namespace {

int g_fd = 3;

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
std::string g_token;  // the request's token: the parent accepts only lines that carry it

void emit(json j) {
  if (!g_token.empty()) j["token"] = g_token;
  const std::string line = j.dump() + "\n";
  std::size_t off = 0;
  while (off < line.size()) {
    const ssize_t n = ::write(g_fd, line.data() + off, line.size() - off);
    if (n <= 0) return;
    off += static_cast<std::size_t>(n);
  }
}

std::string shape_str(const json& shape) {
  std::string s;
  if (shape.contains("_order")) {
    for (const json& k : shape["_order"]) s += (s.empty() ? "" : ",") + k.get<std::string>() + "=" + shape[k.get<std::string>()].dump();
  } else {
    for (auto it = shape.begin(); it != shape.end(); ++it) s += (s.empty() ? "" : ",") + it.key() + "=" + it.value().dump();
  }
  return s;
}

double dims_product(const json& shape) {
  double p = 1;
  for (auto it = shape.begin(); it != shape.end(); ++it)
    if (it.key() != "_order" && it.value().is_number()) p *= it.value().get<double>();
  return p;
}

json failed_detail() {
  return {{"checked", 1024},  {"mismatches", 1000}, {"nans", 0},    {"unwritten", 0},   {"max_abs_err", 3.25},
          {"max_err_over_tol", 25000.0}, {"atol", 1e-5}, {"rtol", 1e-5}, {"param", "y"},
          {"first_mismatches", {{{"index", 0}, {"got", 0.5}, {"want", 3.75}}, {{"index", 1}, {"got", -0.25}, {"want", 1.0}}}},
          {"message", "1000 of 1024 elements outside tolerance (0 NaN) in 'y'"}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  g_fd = std::atoi(argv[2]);
  std::ifstream f(argv[1]);
  const json req = json::parse(f, nullptr, false);
  if (req.is_discarded()) return 2;
  g_token = req.value("token", "");
  const std::string mode = req.value("mode", "evaluate");
  // FAKE_GPUS: how many GPUs the fake machine has (identify's device_count; default 1).
  const char* gpus = std::getenv("FAKE_GPUS");
  const int device_count = gpus != nullptr ? std::atoi(gpus) : 1;
  if (device_count == 0) {
    emit({{"event", "fatal"},
          {"disposition", "launch_error"},
          {"message", "/build/src/mskb/gpu/device.cu:83: cudaGetDeviceCount(&count) failed: cudaErrorNoDevice (no CUDA-capable device is detected)"}});
    return 3;
  }
  if (mode == "identify") {
    emit({{"event", "device"}, {"name", "Fake H200"}, {"uuid", "GPU-fake-agents-0001"}, {"sms", 132}, {"device_count", device_count}});
    emit({{"event", "done"}});
    return 0;
  }
  if (mode == "device") {
    emit({{"event", "device"}, {"name", "Fake H200"}, {"uuid", "GPU-fake-agents-0001"}, {"sms", 132},
          {"dram_bandwidth_gbs", 4300.0}, {"fp32_tflops", 60.0}, {"bf16_tflops", 790.0}});
    emit({{"event", "done"}});
    return 0;
  }
  const std::string library = req.value("library", "");
  const cmtest::Markers m = cmtest::read_markers(cmtest::slurp(library));
  if (const char* log = std::getenv("FAKE_RUNNER_LOG"); log != nullptr && *log != '\0') {
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    std::size_t checks = 0, large = 0;
    for (const json& c : req.value("checks", json::array())) {
      checks += c.value("seeds", json::array()).size();
      large += c.value("sweep", "") == "large" ? 1 : 0;
    }
    std::ofstream(log, std::ios::app) << library << " timings=" << req.value("timings", json::array()).size() << " checks=" << checks
                                      << " large=" << large << (visible != nullptr ? std::string(" gpu=") + visible : std::string()) << "\n";
  }
  const int64_t start_ns = steady_ns();
  // FAKE_RUNNER_SPANS: one line per evaluation that returns, written as it ends: its task, its
  // GPU (CUDA_VISIBLE_DEVICES) and when it ran (the monotonic clock, shared by every process).
  struct Span {
    const char* path = std::getenv("FAKE_RUNNER_SPANS");
    std::string task, gpu;
    int64_t begin = 0;
    ~Span() {
      if (path != nullptr && *path != '\0')
        std::ofstream(path, std::ios::app) << "task=" << task << " gpu=" << gpu << " begin=" << begin << " end=" << steady_ns() << "\n";
    }
  } span;
  span.task = req.value("task", "");
  span.gpu = std::getenv("CUDA_VISIBLE_DEVICES") != nullptr ? std::getenv("CUDA_VISIBLE_DEVICES") : "";
  span.begin = start_ns;
  int sleep_ms = m.sleep_ms;
  if (const char* s = std::getenv("FAKE_RUNNER_SLEEP_MS"); s != nullptr) sleep_ms += std::atoi(s);
  if (sleep_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
  // FAKE_RUNNER_SANDBOX=1: as the real verifier, the candidate's sandbox level (here the mode the
  // environment asks for, MSKB_SANDBOX and MSKB_SANDBOX_SPEC) and, at the end, its process usage.
  const bool sandbox_events = std::getenv("FAKE_RUNNER_SANDBOX") != nullptr;
  if (sandbox_events) {
    const char* sandbox_mode = std::getenv("MSKB_SANDBOX");
    const char* spec = std::getenv("MSKB_SANDBOX_SPEC");
    emit({{"event", "sandbox"},
          {"level", std::string("fake ") + (sandbox_mode != nullptr && *sandbox_mode != '\0' ? sandbox_mode : "on") +
                        (spec != nullptr && std::string(spec) == "allow" ? " spec-allow" : "")}});
  }
  emit({{"event", "phase"}, {"phase", "call"}, {"shape", ""}, {"seed", 0}, {"timeout_s", 10}});
  // FAKE_RUNNER_GAP_US: the device stays busy this long after each checked call returned.
  const char* gap_env = std::getenv("FAKE_RUNNER_GAP_US");
  const double gap_us = gap_env != nullptr ? std::atof(gap_env) : 0.0;
  if (m.eval == "crash") {
    std::fprintf(stderr, "Segmentation fault in the candidate\n");
    ::raise(SIGSEGV);
  }
  // The real runner's walk (mskb/protocol/events.hpp, check_event_sequence): a failed check ends its
  // shape, three end the run, a timed shape's timing follows its last seed while nothing failed.
  const json timings = req.value("timings", json::array());
  json trace = {{"library", library}, {"task", req.value("task", "")}, {"precision", req.value("precision", "")},
                {"gpu_lock", req.value("gpu_lock", "")}, {"gpu_lock_log", req.value("gpu_lock_log", "")},
                {"host_threads", req.value("host_threads", 0)}, {"timings", timings.size()},
                {"nice", ::getpriority(PRIO_PROCESS, 0)},
                {"target_noise", req.contains("timing") ? req["timing"].value("target_noise", 0.0) : 0.0},
                {"load_before_lock", req.value("load_before_lock", false)},
                {"instance_share_dir", req.value("instance_share_dir", "")},
                {"instance_share_consumers", req.value("instance_share_consumers", 0)},
                {"shared_made", 0}, {"shared_found", 0}, {"shared_wrong", 0}, {"checks", 0},
                {"gpu", std::getenv("CUDA_VISIBLE_DEVICES") != nullptr ? std::getenv("CUDA_VISIBLE_DEVICES") : ""}, {"start_ns", start_ns}};
  if (!trace["gpu_lock"].get<std::string>().empty() && !timings.empty()) {
    const char* ms = std::getenv("FAKE_RUNNER_TIMING_MS");
    const mskb::GpuLock lock(trace["gpu_lock"].get<std::string>(), req.value("gpu_lock_log", ""));
    mskb::GpuLock::Exclusive hold = lock.exclusive();
    hold.label("timing fake sampling_ms=" + std::string(ms != nullptr ? ms : "20"));
    trace["exclusive_from_ns"] = steady_ns();
    std::this_thread::sleep_for(std::chrono::milliseconds(ms != nullptr ? std::atoi(ms) : 20));
    trace["exclusive_to_ns"] = steady_ns();
  }
  auto write_trace = [&] {
    const char* path = std::getenv("FAKE_RUNNER_TRACE");
    if (path == nullptr || *path == '\0') return;
    trace["end_ns"] = steady_ns();
    std::ofstream(path, std::ios::app) << trace.dump() + "\n";
  };
  auto timing_of = [&](const json& c) -> const json* {
    for (const json& t : timings)
      if (t["shape"] == c["shape"] && t.value("sweep", "") == c.value("sweep", "")) return &t;
    return nullptr;
  };
  const mskb::InstanceShare share(req.value("instance_share_dir", ""), req.value("instance_share_consumers", 0));
  // An instance of a few values derived from its key: what the one that makes it publishes.
  const auto instance_of = [](const std::string& key) {
    mskb::Args a(2);
    a[0].value = static_cast<double>(key.size());
    for (std::size_t i = 0; i < 5000; ++i) a[1].data.push_back(static_cast<double>(std::hash<std::string>{}(key) % 1000003) + 0.5 * static_cast<double>(i));
    return a;
  };
  const auto take_turn = [&](const json& shape, const json& seed) {
    if (!share.active()) return;
    const std::string key = req.value("task", "") + "|" + req.value("precision", "") + "|" + shape_str(shape) + "|" + seed.dump();
    mskb::InstanceShare::Turn turn = share.take(key);
    const mskb::Args want = instance_of(key);
    const std::vector<unsigned char> input(64, static_cast<unsigned char>(key.size()));
    if (turn.found()) {
      mskb::Args got;
      turn.copy_args(got);
      std::vector<unsigned char> in(turn.input_bytes());
      turn.copy_input(in.data());
      const bool same = got.size() == want.size() && got[0].value == want[0].value && got[1].data == want[1].data && in == input;
      trace[same ? "shared_found" : "shared_wrong"] = trace[same ? "shared_found" : "shared_wrong"].get<int>() + 1;
    } else if (turn.producing()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(30));  // preparing it: the others wait
      if (turn.publish(want, input.data(), input.size(), "cpu_fp64", 1.0, 0.5)) trace["shared_made"] = trace["shared_made"].get<int>() + 1;
    }
  };
  int failures = 0;
  for (const json& c : req.value("checks", json::array())) {
    const std::string sweep = c.value("sweep", "");
    const json seeds = c.value("seeds", json::array());
    for (std::size_t k = 0; k < seeds.size(); ++k) {
      trace["checks"] = trace["checks"].get<int>() + 1;
      take_turn(c["shape"], seeds[k]);
      const bool fail = (m.eval == "wrong_result" && sweep == "paper") || (m.eval == "heldout_wrong" && sweep == "heldout");
      json ev = {{"event", "check"},    {"shape", c["shape"]}, {"shape_str", shape_str(c["shape"])}, {"sweep", sweep},
                 {"seed", seeds[k]},    {"disposition", fail ? "wrong_result" : "passed"}, {"reference", "cpu"},
                 {"gap_us", gap_us},    {"call_us", 10.0}};
      ev["detail"] = fail ? failed_detail() : json{{"checked", 1024}, {"mismatches", 0}};
      // FAKE_RUNNER_SLOW_GENERATE=SHAPE: that shape's inputs take 1.5 s to make instead of 0.25.
      const char* slow = std::getenv("FAKE_RUNNER_SLOW_GENERATE");
      const double generate = slow != nullptr && shape_str(c["shape"]) == slow ? 1.5 : 0.25;
      ev["seconds"] = {{"generate", generate}, {"reference", 0.125}, {"waited", 0.0625}, {"check", 0.5}};
      emit(ev);
      if (fail) {
        if (++failures >= 3) {
          write_trace();
          emit({{"event", "done"}});
          return 0;
        }
        break;
      }
      const json* t = timing_of(c);
      if (t == nullptr || k + 1 != seeds.size() || failures > 0) continue;
      const double median = cmtest::fake_base_us(dims_product((*t)["shape"])) / m.speed;
      json time = {{"median", median}, {"min", median * 0.99}, {"max", median * 1.02}, {"mean", median},
                   {"stddev", median * 0.01}, {"n", 50}, {"noise", 0.002}, {"wall_gap_max_us", 0.0}, {"wall_gap_p90_us", 0.0},
                   {"wall_median_us", median + 4.0}, {"sm_clock_mhz", 1980.0}};
      emit({{"event", "timing"}, {"shape", (*t)["shape"]}, {"shape_str", shape_str((*t)["shape"])}, {"sweep", t->value("sweep", "")},
            {"seed", seeds[k]}, {"time_us", time}, {"after_timing", "passed"}, {"after_detail", json::object()}, {"seconds", 2.0}});
    }
  }
  write_trace();
  if (sandbox_events)
    emit({{"event", "note"}, {"key", "candidate_usage"},
          {"text", "wall 0.20 s, user 0.10 s, system 0.05 s, context switches 3 voluntary + 1 involuntary"}});
  emit({{"event", "done"}});
  return 0;
}
