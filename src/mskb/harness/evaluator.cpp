#include "mskb/harness/evaluator.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>

#include "mskb/harness/compiler.hpp"
#include "mskb/protocol/events.hpp"
#include "mskb/harness/reference_kernel.hpp"
#include "mskb/util/device_probe.hpp"
#include "mskb/util/process.hpp"
#include "mskb/core/random_shapes.hpp"
#include "mskb/core/task_file.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace mskb {

Disposition judge_timing(const TimingStats& t, double dram_floor_us, const TimingPolicy& p, double flop_floor_us, bool beyond_cache) {
  if (t.wall_gap_p90_us > std::max(p.unsynced_gap_us, p.unsynced_gap_fraction * t.median_us)) return Disposition::unsynced;
  if (dram_floor_us > 0 && t.median_us < p.too_fast_fraction * dram_floor_us) return Disposition::too_fast;
  if (flop_floor_us > 0 && t.median_us < p.too_fast_flop_fraction * flop_floor_us) return Disposition::too_fast;
  if (beyond_cache && p.replay_dram_margin > 0 && dram_floor_us > 0 && t.median_us * p.replay_dram_margin < dram_floor_us) return Disposition::too_fast;
  if (t.noise > p.max_noise) return Disposition::noisy;
  return Disposition::passed;
}

double flop_floor_us(const Cost& c, const Ceilings& ceilings) { return roofline_us(0.0, c.flops, true, ceilings); }

Disposition judge_check_gap(double gap_us, double call_us, const TimingPolicy& p) {
  return gap_us > std::max(p.unsynced_gap_us, p.unsynced_gap_fraction * call_us) ? Disposition::unsynced : Disposition::passed;
}

std::string runner_path(const std::string& override_path) {
  if (!override_path.empty()) return override_path;
  if (const char* e = std::getenv("MSKB_RUNNER"); e && *e) return e;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (const fs::path& cand : {self.parent_path() / "mskb-runner", self.parent_path().parent_path() / "apps" / "mskb-runner"})
      if (fs::exists(cand, ec)) return cand.string();
  }
  throw std::runtime_error("cannot find mskb-runner next to " + self.string() + " (set MSKB_RUNNER)");
}

std::string make_work_dir(const std::string& hint) { return launch_work_dir(Launcher{}, hint); }

std::string evaluation_token() {
  std::random_device rd;
  static const char* hex = "0123456789abcdef";
  std::string t;
  for (int i = 0; i < 4; ++i) {
    uint32_t x = rd();
    for (int k = 0; k < 8; ++k, x >>= 4) t += hex[x & 15];
  }
  return t;
}

std::vector<std::pair<std::string, std::string>> runner_environment(std::vector<std::pair<std::string, std::string>> extra,
                                                                    const char* inherited) {
  constexpr const char* kHuge = "glibc.malloc.hugetlb=1";
  for (auto& [k, v] : extra)
    if (k == "GLIBC_TUNABLES") {
      if (v.find("glibc.malloc.hugetlb") == std::string::npos) v += std::string(v.empty() ? "" : ":") + kHuge;
      return extra;
    }
  const std::string base = inherited != nullptr ? inherited : "";
  extra.push_back({"GLIBC_TUNABLES", base.find("glibc.malloc.hugetlb") != std::string::npos ? base
                                                                                            : base + (base.empty() ? "" : ":") + kHuge});
  return extra;
}

namespace {
std::vector<Shape> own_shapes(const EvalOptions& opt) { return opt.matrix_path.empty() ? opt.custom_shapes : std::vector<Shape>{opt.matrix_shape}; }
// A user's task (mskb/core/task_file.hpp): the runner reads it from its file.
std::string task_file_of(const TaskSpec& spec) {
  const TaskFile* f = spec.file;
  return f ? f->absolute_path : std::string();
}
}  // namespace

RunRequest evaluation_request(const TaskSpec& spec, Precision p, const std::string& library, const EvalOptions& opt) {
  RunRequest req;
  req.mode = RunMode::evaluate;
  req.task = spec.name;
  req.task_file = task_file_of(spec);
  req.reference_library = reference_kernel_library(spec);  // a task file's reference kernel, if it has one
  req.precision = p;
  req.library = library;
  req.symbol = spec.symbol(p);
  req.timing = opt.timing;
  req.gpu_lock = opt.gpu_lock;
  // Diagnostics: every hold of the lane's lock, one line each (docs/harness.md section 11).
  if (const std::string& log = opt.settings.gpu_lock_log; !log.empty() && !req.gpu_lock.empty())
    req.gpu_lock_log = opt.gpu_lock_log_suffix.empty() ? log : log + "." + opt.gpu_lock_log_suffix;
  req.host_threads = opt.host_threads;
  req.load_before_lock = opt.load_before_lock && !req.gpu_lock.empty();
  req.instance_share_dir = opt.instance_share_dir;
  req.instance_share_consumers = opt.instance_share_consumers;
  // Where instances live and are compared: the options, else the environment's settings (for validation).
  const Settings& env = opt.settings;
  if (const auto v = opt.gpu_instance_min_complexity ? opt.gpu_instance_min_complexity : env.gpu_instance_min_complexity)
    req.gpu_instance_min_complexity = *v;
  if (const auto v = opt.gpu_compare_min_complexity ? opt.gpu_compare_min_complexity : env.gpu_compare_min_complexity)
    req.gpu_compare_min_complexity = *v;
  if (const std::optional<bool> on = opt.device_inputs ? opt.device_inputs : env.device_inputs) req.device_inputs = *on;
  if (env.device_time == false) req.timing.device_samples = 0;  // MSKB_DEVICE_TIME=off
  if (!opt.wrapper.empty()) req.guard_bytes = 0;  // the sanitizer needs exact allocation bounds
  // Every shape gets at least two seeds: the second runs in the buffers of the first, with new
  // contents everywhere, so a kernel that replays a result keyed on its pointers fails.
  std::vector<uint64_t> seeds;
  for (int s = 1; s <= std::max(opt.seeds, 2); ++s) seeds.push_back(static_cast<uint64_t>(s));
  auto listed = [](const std::vector<Sweep>& list, Sweep sweep) { return std::find(list.begin(), list.end(), sweep) != list.end(); };
  auto timed = [&](Sweep sweep) { return !opt.check_only && listed(opt.timed_sweeps, sweep); };
  auto checked = [&](Sweep sweep) {
    return sweep == Sweep::paper || sweep == Sweep::heldout || timed(sweep) || listed(opt.checked_sweeps, sweep);
  };
  const bool checks_part = opt.part == Part::checks, timing_part = opt.part == Part::timing;
  // A timed evaluation split in two parts runs every check once: the timing part checks the last
  // two seeds of each timed shape (the changed-inputs probe and the timed seed must share the
  // timing process and its buffers), so the checks part leaves them out.
  auto split_seeds = [&](std::vector<uint64_t> s_seeds, bool is_timed) {
    if (timing_part) return std::vector<uint64_t>(s_seeds.end() - 2, s_seeds.end());
    if (checks_part && is_timed) s_seeds.resize(s_seeds.size() - 2);
    return s_seeds;
  };
  if (!opt.matrix_path.empty() || !opt.custom_shapes.empty()) {  // a user's matrix or --shape: instead of the sweeps
    req.matrix_path = opt.matrix_path;
    const Sweep own = opt.matrix_path.empty() ? Sweep::custom : Sweep::matrix;
    const std::vector<uint64_t> m_seeds = split_seeds(seeds, !opt.check_only);
    for (const Shape& s : own_shapes(opt)) {
      if (!m_seeds.empty()) req.checks.push_back({s, own, m_seeds});
      if (!opt.check_only && !checks_part) req.timings.push_back({s, own, seeds.back()});
    }
    return req;
  }
  std::vector<Shape> random;
  if (!timing_part && opt.random_shapes > 0) random = random_shapes(spec, opt.shape_seed, opt.random_shapes);
  for (const Sweep sweep : {Sweep::paper, Sweep::heldout, Sweep::random, Sweep::large}) {
    const bool is_timed = timed(sweep);
    if (!checked(sweep) && sweep != Sweep::random) continue;
    if (timing_part && !is_timed) continue;
    for (const Shape& s : sweep == Sweep::random ? random : spec.sweep(to_string(sweep))) {
      // Large shapes are checked with two seeds: their cost is in the timing, not the seeds.
      const std::vector<uint64_t> s_seeds = split_seeds(sweep == Sweep::large ? std::vector<uint64_t>{1, 2} : seeds, is_timed);
      if (!s_seeds.empty()) req.checks.push_back({s, sweep, s_seeds});
      if (is_timed && !checks_part) req.timings.push_back({s, sweep, s_seeds.back()});
    }
  }
  return req;
}

RunRequest single_shape_request(const TaskSpec& spec, Precision p, const std::string& library, const Shape& shape, RunMode mode) {
  RunRequest req;
  req.mode = mode;
  req.task = spec.name;
  req.task_file = task_file_of(spec);
  req.reference_library = reference_kernel_library(spec);  // a task file's reference kernel, if it has one
  req.precision = p;
  req.library = library;
  req.symbol = spec.symbol(p);
  req.checks = {{shape, Sweep::paper, {1}}};
  if (mode == RunMode::evaluate) req.timings = {{shape, Sweep::paper, 1}};
  return req;
}

namespace {

// What one evaluation's runner reported, and how its process ended.
struct RunnerReport {
  std::string phase = "start", phase_shape;
  uint64_t phase_seed = 0;
  bool done = false;
  std::optional<RunnerEvent> fatal;
  std::vector<RunnerEvent> checks, timings;
  std::vector<RunnerEvent> sequence;  // check and timing events in arrival order
  std::string foreign;                // the first report line that is not this evaluation's runner's
  bool any_line = false;
  ProcessResult process;
  double initial_timeout_s = 0;
  // " at <shape> seed <n>" of the last phase entered ("" before the first)
  std::string where() const { return phase_shape.empty() ? "" : " at " + phase_shape + " seed " + std::to_string(phase_seed); }
};

// One instance's generation seconds: kept as the contender's slowest when they are.
void note_generate(ContenderResult& r, double seconds, const std::string& shape) {
  if (seconds <= r.slowest_generate_s) return;
  r.slowest_generate_s = seconds;
  r.slowest_generate_shape = shape;
}

// Runs the runner on `req_path` and collects its events. A launch that cannot even be built
// (srun missing) throws std::runtime_error.
RunnerReport run_evaluation_runner(const RunRequest& req, const std::string& req_path, const std::string& dir, double call_timeout,
                                   const EvalOptions& opt, ContenderResult& res) {
  std::map<std::string, double>& phase_seconds = res.phase_seconds;
  std::vector<std::string> inner = opt.wrapper;  // the sanitizer runs inside the job step, around the runner
  for (const std::string& a : {runner_path(opt.runner), req_path, std::string("3")}) inner.push_back(a);
  const LaunchCommand lc = launch_command(opt.launcher, opt.launcher.slurm() ? srun_program(opt.launcher) : "", inner, 3, kEvalJobName);
  SpawnOptions so;
  so.argv = lc.argv;
  so.report_on_stdout = lc.report_on_stdout;
  so.term_grace_s = lc.term_grace_s;
  so.log_path = dir + "/runner.log";
  so.initial_timeout_s = first_line_timeout(opt.launcher, 120);
  so.report_fd = 3;
  so.env = runner_environment(opt.env, std::getenv("GLIBC_TUNABLES"));
  so.nice = opt.nice;
  RunnerReport rep;
  rep.initial_timeout_s = so.initial_timeout_s;
  const ProcessResult spawned = run_process(so, [&](const std::string& line) -> double {
    rep.any_line = true;
    std::optional<RunnerEvent> ev = parse_runner_event(line);
    // Only the verifier holds the report pipe, and it tags every line with the request's token:
    // anything else did not come from it, and the evaluation cannot be trusted.
    if (!ev || ev->token != req.token) {
      if (rep.foreign.empty()) rep.foreign = line.substr(0, 120);
      return 0;
    }
    switch (ev->kind) {
      case EventKind::phase:
        rep.phase = ev->phase;
        rep.phase_shape = ev->shape_str;
        rep.phase_seed = ev->seed.value_or(0);
        return rep.phase == "call" ? call_timeout : ev->timeout_s;
      case EventKind::check:
      case EventKind::timing: {
        const json& sec = ev->body.contains("seconds") ? ev->body["seconds"] : json();
        if (sec.is_object()) {
          for (const auto& [k, v] : sec.items())
            if (v.is_number()) phase_seconds[k] += v.get<double>();
          if (const auto g = sec.find("generate"); g != sec.end() && g->is_number()) note_generate(res, g->get<double>(), ev->shape_str);
        } else if (sec.is_number()) {
          phase_seconds[ev->event] += sec.get<double>();
        }
        rep.sequence.push_back(*ev);
        (ev->kind == EventKind::check ? rep.checks : rep.timings).push_back(std::move(*ev));
        return 0;
      }
      case EventKind::fatal: rep.fatal = std::move(*ev); return 0;
      case EventKind::done: rep.done = true; return 0;
      default:
        if (ev->event == "sandbox") res.sandbox = ev->body.value("level", std::string());  // issue 40
        if (ev->event == "note" && !ev->body.value("key", std::string()).empty())
          res.notes[ev->body.value("key", std::string())] = ev->body.value("text", std::string());
        return 0;
    }
  });
  rep.process = as_local_result(opt.launcher, spawned);
  return rep;
}

// The first failing check decides, in the order the checks ran; passed checks are counted.
void judge_checks(const RunnerReport& rep, const EvalOptions& opt, ContenderResult& res) {
  for (const RunnerEvent& c : rep.checks) {
    Disposition d = c.disposition.value_or(Disposition::harness_error);
    // Work still running after the entry point returned explains (and outranks) a missing output.
    // Not under a wrapper: the sanitizer's instrumentation and its own synchronization make
    // device-busy gaps meaningless there (the unwrapped check judges them).
    if (opt.wrapper.empty() && judge_check_gap(c.gap_us, c.call_us.value_or(0.0), opt.policy) == Disposition::unsynced)
      d = Disposition::unsynced;
    if (d == Disposition::passed) {
      ++res.checks_passed;
      continue;
    }
    if (res.disposition != Disposition::not_run) continue;
    res.disposition = d;
    res.failure = c.body;
    const json& detail = c.body.contains("detail") ? c.body["detail"] : json();
    const std::string msg = detail.is_object() ? detail.value("message", "") : "";
    res.message = to_string(d) + " at " + c.body.value("shape_str", "") + " (" + c.body.value("sweep", "") + ", seed " +
                  std::to_string(c.body.value("seed", 0)) + "): " +
                  (d == Disposition::unsynced ? "the device was still busy " + std::to_string(static_cast<int>(c.gap_us)) +
                                                    " us after the entry point returned"
                                              : msg);
  }
}

// No check failed: how the process ended decides (the sanitizer's exit code, the runner's fatal
// event, the watchdog, a signal, an exit without done).
void judge_process_end(const RunnerReport& rep, const EvalOptions& opt, double call_timeout, ContenderResult& res) {
  const ProcessResult& pr = rep.process;
  if (!opt.wrapper.empty() && !pr.signaled && pr.exit_code == kSanitizerExitCode) {
    res.disposition = Disposition::sanitizer_error;
    std::string first;
    std::istringstream log(pr.log_tail);
    for (std::string l; std::getline(log, l);)
      if (first.empty() && l.rfind("========= ", 0) == 0 && l.find("ERROR SUMMARY") == std::string::npos &&
          l.find("COMPUTE-SANITIZER") == std::string::npos)  // the banner line
        first = l.substr(10);
    res.message = "sanitizer_error: " + (first.empty() ? std::string("compute-sanitizer reported errors") : first);
    return;
  }
  const std::string where = rep.where();
  if (rep.fatal) {
    res.disposition = rep.fatal->disposition.value_or(Disposition::harness_error);
    res.message = to_string(res.disposition) + where + ": " + rep.fatal->message;
  } else if (pr.timed_out) {
    res.disposition = Disposition::timeout;
    res.message = "timeout: no progress for " + std::to_string(static_cast<int>(rep.phase == "call" ? call_timeout : rep.initial_timeout_s)) +
                  " s during " + rep.phase + where + " (killed)";
  } else if (pr.signaled || !rep.done) {
    res.disposition = Disposition::crashed;
    res.message = pr.signaled ? std::string("crashed: ") + signal_name(pr.signal) + " during " + rep.phase + where
                              : "crashed: runner exited with code " + std::to_string(pr.exit_code) + " during " + rep.phase + where;
    const std::string l = last_child_line(pr.log_tail);
    if (!l.empty()) res.message += " (" + l + ")";
  }
}

// The message of a timed shape that is not passed.
std::string timing_message(const ShapeTiming& st, const RunnerEvent& t, double dram_us, double flops_us, const TimingPolicy& policy) {
  const std::string at = to_string(st.disposition) + " at " + st.shape.str() + ": ";
  if (t.after_timing != Disposition::passed)
    return at + "after repeated timed calls, " + t.body["after_detail"].value("message", std::string());
  if (st.disposition == Disposition::too_fast)
    return at + "median " + std::to_string(st.time.median_us) + " us is impossible: its minimum DRAM traffic needs " +
           std::to_string(dram_us) + " us at the measured bandwidth (limit " + std::to_string(policy.too_fast_fraction) +
           "x) and its FLOPs " + std::to_string(flops_us) + " us at the device's BF16 tensor peak (limit " +
           std::to_string(policy.too_fast_flop_fraction) + "x; past " + std::to_string(static_cast<int>(policy.replay_l2_multiple)) +
           "x the L2, faster than the DRAM time by more than " + std::to_string(policy.replay_dram_margin) + "x)";
  if (st.disposition == Disposition::unsynced)
    return at + "device still busy " + std::to_string(static_cast<int>(st.time.wall_gap_p90_us)) +
           " us after the entry point returned (in at least a tenth of " + std::to_string(st.time.n) + " timed calls)";
  return at + "relative noise " + std::to_string(st.time.noise) + " after " + std::to_string(st.time.n) + " samples";
}

// Every check passed: the timings decide (the worst timed shape; noisy only when nothing worse).
void judge_timings(const RunnerReport& rep, const TaskSpec& spec, Precision p, const EvalOptions& opt, ContenderResult& res) {
  res.disposition = Disposition::passed;
  for (const RunnerEvent& t : rep.timings) {
    ShapeTiming st;
    st.sweep = parse_enum<Sweep>(t.sweep);
    st.shape = t.body.at("shape").get<Shape>();
    // JSON objects are key-sorted; restore the spec's dimension order.
    for (const Shape& s : st.sweep == Sweep::matrix || st.sweep == Sweep::custom ? own_shapes(opt) : spec.sweep(t.sweep)) {
      Shape sorted = s;
      std::sort(sorted.dims.begin(), sorted.dims.end());
      Shape got = st.shape;
      std::sort(got.dims.begin(), got.dims.end());
      if (sorted == got) st.shape = s;
    }
    st.complexity = spec.complexity(st.shape);
    const Cost c = spec.cost(st.shape, p);
    st.roofline_us = roofline_us(c.bytes, c.flops, c.tensor && p == Precision::bf16, opt.ceilings);
    st.time = t.body.at("time_us").get<TimingStats>();
    // A wrong output of a timed call means the kernel skips work on repeated calls. The
    // impossibility floor: the bytes must cross DRAM (L2 is flushed) and the FLOPs take at least
    // the time of the device's fastest measured arithmetic (BF16 tensor cores), whatever the
    // precision (tensor-core emulation of FP32 included).
    const double dram_us = roofline_us(c.bytes, 0.0, false, opt.ceilings), flops_us = flop_floor_us(c, opt.ceilings);
    st.disposition = t.after_timing != Disposition::passed ? t.after_timing : judge_timing(st.time, dram_us, opt.policy, flops_us,
                                                 opt.ceilings.l2_bytes > 0 && c.bytes >= opt.policy.replay_l2_multiple * opt.ceilings.l2_bytes);
    const bool worse = res.disposition == Disposition::passed ||
                       (res.disposition == Disposition::noisy && st.disposition != Disposition::noisy);
    if (st.disposition != Disposition::passed && worse) {
      res.disposition = st.disposition;
      res.failure = t.body;
      res.message = timing_message(st, t, dram_us, flops_us, opt.policy);
    }
    res.timings.push_back(st);
  }
  // Faster than the roofline of its own precision (FP32 CUDA cores, or the BF16 tensor peak for
  // tensor tasks) but above the physical floor: possible (tensor-core emulation, an algorithm with
  // fewer FLOPs), never silent.
  if (is_correct(res.disposition) && res.message.empty())
    for (const ShapeTiming& st : res.timings)
      if (st.roofline_us > 0 && st.time.median_us > 0 && sol_fraction(st.roofline_us, st.time.median_us) > 1.0) {
        res.message = "above_roofline at " + st.shape.str() + ": " + std::to_string(sol_fraction(st.roofline_us, st.time.median_us)) +
                      "x the roofline of its precision (faster than its FLOPs at the measured peak or its bytes at the measured "
                      "bandwidth): verify how";
        break;
      }
}

}  // namespace

ContenderResult evaluate(const TaskSpec& spec, Precision p, const std::string& contender, const std::string& kernel,
                         const std::string& library, const EvalOptions& opt) {
  ContenderResult res;
  res.task = spec.name;
  res.precision = to_string(p);
  res.contender = contender;
  res.kernel = kernel;

  RunRequest req = evaluation_request(spec, p, library, opt);
  req.token = evaluation_token();
  for (const auto& c : req.checks) res.checks_total += static_cast<int>(c.seeds.size());

  const std::string dir =
      opt.work_dir.empty() ? launch_work_dir(opt.launcher, spec.name + "-" + res.precision + "-" + contender) : opt.work_dir;
  fs::create_directories(dir);
  const std::string req_path = dir + "/request.json";
  std::ofstream(req_path) << json(req).dump(1);

  const double call_timeout = opt.call_timeout_s ? *opt.call_timeout_s : spec.call_timeout_s * opt.call_timeout_scale;
  RunnerReport rep;
  try {
    rep = run_evaluation_runner(req, req_path, dir, call_timeout, opt, res);
  } catch (const std::runtime_error& e) {
    res.disposition = Disposition::harness_error;
    res.message = std::string("harness_error: ") + e.what();
    return res;
  }
  const ProcessResult& pr = rep.process;
  res.seconds = pr.seconds;
  res.log_tail = pr.log_tail;
  // srun could not start the step (no allocation, a bad option, the runner not on the nodes):
  // the harness's problem, never the kernel's.
  if (const std::string why = launch_failure(opt.launcher, pr, rep.any_line, pr.log_tail); !why.empty()) {
    res.disposition = Disposition::harness_error;
    res.message = "harness_error: " + why;
    return res;
  }
  // The report must be the one the request asked for: every planned check and timing exactly
  // once, in order, from the runner that holds the token. Anything else is never a pass.
  std::string broken = rep.foreign.empty() ? "" : "a report line not from this evaluation's runner: " + rep.foreign;
  if (broken.empty()) broken = check_event_sequence(req, rep.sequence, rep.done);
  if (!broken.empty()) {
    res.disposition = Disposition::harness_error;
    res.message = "harness_error: " + broken;
    return res;
  }
  judge_checks(rep, opt, res);
  if (res.disposition == Disposition::not_run) judge_process_end(rep, opt, call_timeout, res);
  if (res.disposition == Disposition::not_run) judge_timings(rep, spec, p, opt, res);
  return res;
}

json query_device(RunMode mode, const std::string& runner, const Launcher& launcher) {
  RunRequest req;
  req.mode = mode;
  const std::string dir = launch_work_dir(launcher, "device-" + to_string(mode));
  std::ofstream(dir + "/request.json") << json(req).dump();
  const LaunchCommand lc = launch_command(launcher, launcher.slurm() ? srun_program(launcher) : "",
                                          {runner_path(runner), dir + "/request.json", "3"}, 3, kDeviceJobName);
  SpawnOptions so;
  so.argv = lc.argv;
  so.report_on_stdout = lc.report_on_stdout;
  so.term_grace_s = lc.term_grace_s;
  so.log_path = dir + "/runner.log";
  so.initial_timeout_s = first_line_timeout(launcher, mode == RunMode::device ? 300 : 60);
  json device, fatal;
  bool any_line = false;
  const ProcessResult pr = run_process(so, [&](const std::string& line) -> double {
    any_line = true;
    const std::optional<RunnerEvent> ev = parse_runner_event(line);
    if (ev && ev->kind == EventKind::device) device = ev->body;
    if (ev && ev->kind == EventKind::fatal) fatal = ev->body;
    return 0;
  });
  if (!device.is_null()) return device;
  if (const std::string why = launch_failure(launcher, pr, any_line, pr.log_tail); !why.empty())
    throw std::runtime_error("cannot query the GPU through Slurm: " + why);
  std::string why = fatal.is_null() ? last_child_line(pr.log_tail) : fatal.value("message", "");
  // The runner's facts (mskb/util/device_probe.hpp) name the cause: no driver, a stub, an old driver, no GPU.
  if (!fatal.is_null() && fatal.contains("device_probe") && fatal["device_probe"].is_object())
    if (const std::optional<NoDeviceReason> r = explain_no_device(fatal["device_probe"].get<DeviceProbe>()))
      throw std::runtime_error("no usable CUDA device: this command needs an NVIDIA GPU (" + r->text + ")");
  if (why.find("cudaErrorNoDevice") != std::string::npos || why.find("cudaErrorInsufficientDriver") != std::string::npos ||
      why.find("no CUDA-capable") != std::string::npos || why.find("driver") != std::string::npos)
    throw std::runtime_error("no usable CUDA device: this command needs an NVIDIA GPU (" + why + ")");
  throw std::runtime_error("cannot query the GPU: " + (why.empty() ? "runner failed" : why));
}

json device_info(bool refresh, const std::string& runner, const Launcher& launcher) {
  const json id = query_device(RunMode::identify, runner, launcher);
  const fs::path cache = fs::path(default_cache_dir()) / ("device-" + id.value("uuid", std::string("unknown")) + ".json");
  std::error_code ec;
  if (!refresh && fs::exists(cache, ec)) {
    std::ifstream f(cache);
    json j = json::parse(f, nullptr, false);
    if (!j.is_discarded() && j.contains("dram_bandwidth_gbs") && j.contains("launch_floor_us")) {  // one without a launch floor: again
      j["cached"] = true;
      j["device_count"] = id.value("device_count", 1);
      return j;
    }
  }
  json d = query_device(RunMode::device, runner, launcher);
  fs::create_directories(cache.parent_path(), ec);
  const fs::path tmp = cache.string() + ".tmp" + std::to_string(::getpid());
  std::ofstream(tmp) << d.dump(2);
  fs::rename(tmp, cache, ec);
  d["cached"] = false;
  d["device_count"] = id.value("device_count", 1);
  return d;
}

Ceilings ceilings_from(const json& d) {
  Ceilings c;
  c.dram_bandwidth_gbs = d.value("dram_bandwidth_gbs", 0.0);
  c.fp32_tflops = d.value("fp32_tflops", 0.0);
  c.bf16_tflops = d.value("bf16_tflops", 0.0);
  c.l2_bytes = d.value("l2_bytes", 0.0);
  return c;
}

// ---- the slowest generation of a result (its JSON: result_json.cpp)

json slowest_generate_json(const ContenderResult& r) {
  if (r.slowest_generate_shape.empty()) return nullptr;
  return {{"shape", r.slowest_generate_shape}, {"seconds", r.slowest_generate_s}};
}

void merge_slowest_generate(ContenderResult& into, const ContenderResult& part) {
  if (!part.slowest_generate_shape.empty()) note_generate(into, part.slowest_generate_s, part.slowest_generate_shape);
}

}  // namespace mskb
