// One check and one timing of the verifier (verifier.cuh).
#include "mskb/gpu/verifier.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/stopwatch.cuh"
#include "mskb/protocol/device_time.hpp"

namespace mskb::gpu {

using json = nlohmann::json;

namespace {

// A synchronized call's device synchronize returns within a few microseconds; a probe gap under
// this needs no second look (every unsynced threshold of the policy is far above it).
constexpr double kCleanGapUs = 50.0;

}  // namespace

CheckEvent Verifier::check(const CheckItem& c, uint64_t seed, bool reuse) {
  CheckEvent ev;
  ev.shape = c.shape;
  ev.sweep = c.sweep;
  ev.seed = seed;
  json& detail = ev.detail;
  double& gap = ev.gap_us;
  const double generate_timeout_s = 120.0 + static_cast<double>(spec_.complexity(c.shape)) * 1e-8;
  rep_.phase("generate", c.shape, seed, generate_timeout_s);
  const auto t_generate = Clock::now();
  // The GPU lock, shared, from the first GPU work of the check to its end: an instance drawn on
  // our GPU is GPU work already; a host instance is waited for without it.
  GpuLock::Guard gpu;
  if (uses_gpu_instance(spec_, req_, c.shape)) {
    gpu = wait_for_gpu(false, c.shape, seed, generate_timeout_s);
  } else if (held_ && held_->gpu) {
    // The previous instance's GPU memory goes under the lock (freeing is GPU work), the next
    // host instance is waited for without it.
    GpuLock::Guard freeing = wait_for_gpu(false, c.shape, seed, generate_timeout_s);
    freeing.label("free");
    device_out_ = IpcMapping();
    held_->gpu.reset();
    staging_ = DeviceMemory();
  }
  load_instance(c, seed, reuse);
  if (!gpu.held()) gpu = wait_for_gpu(false, c.shape, seed, generate_timeout_s);
  const double waited_s = seconds_since(t_generate);
  // A GPU reference runs now, while the candidate uploads; a CPU one ran with the inputs.
  const auto t_reference = Clock::now();
  // A host-made instance compared on our GPU: a GPU reference leaves its outputs there (they
  // would cross to the host and back), the GpuInstance below takes them over.
  const bool on_gpu = !held_->gpu && compares_on_gpu(c.shape);
  DeviceOutputs kept;
  if (on_gpu) kept.out.resize(spec_.params.size());
  if (held_->ref_kind.empty()) {
    held_->ref_kind = kref_.active() ? kref_.compute(c.shape, seed, held_->layout, held_->input, held_->elements, held_->scalars, held_->expected)
                                     : compute_expected_in_place(spec_, c.shape, req_.precision, held_->expected,
                                                                 req_.gpu_reference_min_complexity, on_gpu ? &kept : nullptr);
    held_->reference_s = seconds_since(t_reference);
  }
  ev.reference = held_->ref_kind;
  // A host-made instance compared on our GPU: its read-only inputs and expected outputs go up
  // once (unless the reference left them there); every comparison of this instance is then made there.
  if (on_gpu)
    held_->gpu = std::make_unique<GpuInstance>(spec_, req_.precision, held_->layout, held_->elements, held_->input.data(), held_->expected, &kept);
  instance_uploaded();
  const auto t_check = Clock::now();
  rep_.phase("call", c.shape, seed, spec_.call_timeout_s);
  cand_.send({{"op", "call"}, {"snapshot", "before_sync"}});
  const Message called = cand_.reply();
  gap = called.body.value("gap_us", 0.0);
  ev.call_us = called.body.value("call_us", 0.0);
  Disposition disp = judge_outputs(c, detail);
  if (disp == Disposition::passed) {
    // The gap above is measured after the output snapshot, whose copies can hide side-stream
    // work that ends while they run (seen on the H200: a 0.3 ms diagnostic on a non-blocking
    // stream passed in fp32). Probe calls with nothing between the legacy stream going idle and
    // the device synchronize measure it cleanly; their outputs are judged as well. Work left
    // running shows in every probe; a hiccup of the candidate's thread in one: a large gap is
    // probed again, up to three times, and the smallest is the call's gap.
    for (int probe_no = 0; probe_no < 3; ++probe_no) {
      rep_.phase("call", c.shape, seed, spec_.call_timeout_s);
      cand_.send({{"op", "call"}, {"snapshot", "after_sync"}});
      const double g = cand_.reply().body.value("gap_us", 0.0);
      gap = probe_no == 0 ? g : std::min(gap, g);
      json probe_detail;
      const Disposition pd = judge_outputs(c, probe_detail);
      if (pd != Disposition::passed) {
        disp = pd;
        detail = probe_detail;
        detail["message"] = "on a repeated call with the same inputs: " + probe_detail.value("message", std::string());
        break;
      }
      if (gap < kCleanGapUs) break;
    }
  }
  if (reuse && disp != Disposition::passed)
    detail["message"] = detail.value("message", std::string()) + " (new inputs in the buffers of the previous seed)";
  ev.disposition = disp;
  // The hold log (MSKB_GPU_LOCK_LOG): what this check held the GPU for.
  if (gpu.logged())
    gpu.label("check " + c.shape.str() + " seed " + std::to_string(seed) + (uses_gpu_instance(spec_, req_, c.shape) ? " gpu_instance" : held_->shared ? " host shared" : " host") +
              " generate_ms=" + ms(held_->generate_s) + " reference_ms=" + ms(held_->reference_s) +
              " reference_upload_ms=" + ms(std::chrono::duration<double>(t_check - t_reference).count()) + " check_ms=" + ms(seconds_since(t_check)));
  // generate and reference: the host work of this instance, wherever it ran (most of it ahead,
  // while the previous instance was checked or timed); waited: what of it this check waited for.
  ev.seconds = {{"generate", held_->generate_s},
                {"reference", held_->reference_s},
                {"waited", waited_s + std::chrono::duration<double>(t_check - t_reference).count()},
                {"check", seconds_since(t_check)}};
  return ev;
}

void Verifier::time(const CheckItem& c, uint64_t seed) {
  // Alone on the GPU (as far as the harness goes) from the warm-up to the last sample's check.
  // The watchdog's clock starts once the lock is held: waiting for it is not the kernel's time.
  GpuLock::Guard gpu = wait_for_gpu(true, c.shape, seed, 0);
  rep_.phase("timing", c.shape, seed, spec_.call_timeout_s * 20 + req_.timing.max_time_s * 4);
  const auto t_timing = Clock::now();
  const std::vector<uint64_t> others_before = sharing_ ? sharing_->others_now() : std::vector<uint64_t>{};
  double nvml_s = seconds_since(t_timing);
  // Samples whose outputs are verified besides the last, drawn here and told to the candidate
  // only when the timing starts: one among the first three, one among the next seven.
  std::random_device rd;
  std::vector<int> verify_at;
  if (req_.verify_after_timing) verify_at = {static_cast<int>(rd() % 3), 3 + static_cast<int>(rd() % 7)};
  cand_.send({{"op", "time"}, {"config", req_.timing}, {"verify_at", verify_at}});
  Disposition after = Disposition::passed;
  json after_detail;
  std::vector<int> verified;
  double verify_s = 0;
  Message m;
  while (true) {
    m = cand_.reply();
    if (!m.body.contains("snapshot")) break;
    const auto v0 = Clock::now();
    const int i = m.body.value("snapshot", -1);
    const bool asked = std::find(verify_at.begin(), verify_at.end(), i) != verify_at.end() &&
                       std::find(verified.begin(), verified.end(), i) == verified.end();
    json d;
    const Disposition disp = asked ? judge_outputs(c, d, true) : Disposition::harness_error;
    if (!asked) d["message"] = "the kernel's process sent an output snapshot nobody asked for";
    verified.push_back(i);
    if (disp != Disposition::passed && after == Disposition::passed) {
      after = disp;
      after_detail = d;
      after_detail["message"] = "timed sample " + std::to_string(i) + ": " + d.value("message", std::string());
    }
    verify_s += seconds_since(v0);
    cand_.send({{"op", after == Disposition::passed ? "continue" : "stop"}});
  }
  const double observed_us = (seconds_since(t_timing) - verify_s) * 1e6;
  const std::vector<double> samples = m.body.value("samples", std::vector<double>{});
  const std::vector<double> walls = m.body.value("walls", std::vector<double>{});
  const std::vector<double> gaps = m.body.value("gaps", std::vector<double>{});
  // The statistics are computed here from the raw samples, not taken from the candidate.
  TimingStats t = summarize_samples(samples);
  if (!gaps.empty()) {
    t.wall_gap_max_us = *std::max_element(gaps.begin(), gaps.end());
    t.wall_gap_p90_us = p90_lower(gaps);
  }
  if (!walls.empty()) {
    std::vector<double> w = walls;
    std::sort(w.begin(), w.end());
    t.wall_median_us = w[w.size() / 2];
  }
  t.sm_clock_mhz = m.body.value("sm_clock_mhz", 0.0);
  // Device time: the candidate's extra calls, summarized here and checked against their own call
  // times (informative: P stays on the call time; a report the checks refuse says why instead).
  if (req_.timing.device_samples <= 0) {
    t.device_note = "off (MSKB_DEVICE_TIME=off)";
  } else if (m.body.contains("device_us")) {
    std::string why;
    try {
      t.device = summarize_device_samples(m.body.value("device_us", std::vector<double>{}), m.body.value("device_call_us", std::vector<double>{}), &why);
    } catch (const json::exception&) {
      why = "the device samples are not two lists of numbers";
    }
    if (!t.device) t.device_note = "refused: " + why;
  } else {
    const auto note = m.body.find("device_note");
    t.device_note = note != m.body.end() && note->is_string() ? note->get<std::string>() : std::string("not reported");
  }
  const auto t_after = Clock::now();
  if (sharing_ && sharing_->known()) {
    std::vector<uint64_t> seen = others_before, after_list = sharing_->others_now();
    nvml_s += seconds_since(t_after);
    seen.insert(seen.end(), after_list.begin(), after_list.end());
    t.gpu_other_pids = others(std::move(seen), {});  // sorted union of both lists
    t.gpu_others = static_cast<int>(t.gpu_other_pids.size());
  }
  if (const std::string why = timing_inconsistency(samples, walls, gaps, observed_us); !why.empty() && after == Disposition::passed) {
    after = Disposition::harness_error;
    after_detail = {{"message", "timing report rejected: " + why}};
  }
  const auto t_judge = Clock::now();
  if (after == Disposition::passed && req_.verify_after_timing) {
    json d;
    const Disposition disp = judge_outputs(c, d);
    if (disp != Disposition::passed) {
      after = disp;
      after_detail = d;
      after_detail["message"] = "last timed sample: " + d.value("message", std::string());
    }
  }
  // The hold log (MSKB_GPU_LOCK_LOG): where this timing's exclusive hold went.
  if (gpu.logged())
    gpu.label("timing " + c.shape.str() + " seed " + std::to_string(seed) + " warmup_ms=" + ms(m.body.value("warmup_s", 0.0)) +
              " sampling_ms=" + ms(m.body.value("sampling_s", 0.0)) + " device_ms=" + ms(m.body.value("device_s", 0.0)) + " verify_ms=" + ms(verify_s) + " nvml_ms=" + ms(nvml_s) +
              " judge_ms=" + ms(seconds_since(t_judge)) + " reply_ms=" + ms(std::chrono::duration<double>(t_after - t_timing).count()));
  rep_.emit(TimingEvent{c.shape, c.sweep, seed, t, after, after_detail, verified, seconds_since(t_timing)});
}

}  // namespace mskb::gpu
