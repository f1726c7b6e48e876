#include "mskb/harness/evaluator.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "mskb/harness/compiler.hpp"
#include "mskb/util/process.hpp"
#include "mskb/core/random_shapes.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace mskb {

bool is_correct(const std::string& d) { return d == disposition::passed || d == disposition::noisy; }

std::string judge_timing(const TimingStats& t, double dram_floor_us, const TimingPolicy& p, double flop_floor_us) {
  if (t.wall_gap_p90_us > std::max(p.unsynced_gap_us, p.unsynced_gap_fraction * t.median_us)) return disposition::unsynced;
  if (dram_floor_us > 0 && t.median_us < p.too_fast_fraction * dram_floor_us) return disposition::too_fast;
  if (flop_floor_us > 0 && t.median_us < p.too_fast_flop_fraction * flop_floor_us) return disposition::too_fast;
  if (t.noise > p.max_noise) return disposition::noisy;
  return disposition::passed;
}

double flop_floor_us(const Cost& c, const Ceilings& ceilings) { return roofline_us(0.0, c.flops, true, ceilings); }

std::string judge_check_gap(double gap_us, double call_us, const TimingPolicy& p) {
  return gap_us > std::max(p.unsynced_gap_us, p.unsynced_gap_fraction * call_us) ? disposition::unsynced : disposition::passed;
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

namespace {

// The runner's last words (srun's own task-status lines skipped).
std::string last_log_line(const std::string& log) { return last_child_line(log); }

}  // namespace

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

ContenderResult evaluate(const TaskSpec& spec, Precision p, const std::string& contender, const std::string& kernel,
                         const std::string& library, const EvalOptions& opt) {
  ContenderResult res;
  res.task = spec.name;
  res.precision = to_string(p);
  res.contender = contender;
  res.kernel = kernel;

  RunRequest req;
  req.mode = "evaluate";
  req.task = spec.name;
  req.precision = p;
  req.library = library;
  req.symbol = spec.symbol(p);
  req.timing = opt.timing;
  if (!opt.wrapper.empty()) req.guard_bytes = 0;  // the sanitizer needs exact allocation bounds
  req.token = evaluation_token();
  // Every shape gets at least two seeds: the second runs in the buffers of the first, with new
  // contents everywhere, so a kernel that replays a result keyed on its pointers fails.
  std::vector<uint64_t> seeds;
  for (int s = 1; s <= std::max(opt.seeds, 2); ++s) seeds.push_back(static_cast<uint64_t>(s));
  auto timed = [&](const std::string& sweep) {
    if (opt.check_only) return false;
    for (const auto& t : opt.timed_sweeps)
      if (t == sweep || t == "all") return true;
    return false;
  };
  auto checked = [&](const std::string& sweep) {
    if (sweep == "paper" || sweep == "heldout" || timed(sweep)) return true;
    for (const auto& c : opt.checked_sweeps)
      if (c == sweep || c == "all") return true;
    return false;
  };
  const bool checks_part = opt.part == "checks", timing_part = opt.part == "timing";
  if (!checks_part && !timing_part && opt.part != "all") throw std::invalid_argument("unknown evaluation part '" + opt.part + "'");
  // A timed evaluation split in two parts runs every check once: the timing part checks the last
  // two seeds of each timed shape (the changed-inputs probe and the timed seed must share the
  // timing process and its buffers), so the checks part leaves them out.
  auto split_seeds = [&](std::vector<uint64_t> s_seeds, bool is_timed) {
    if (timing_part) return std::vector<uint64_t>(s_seeds.end() - 2, s_seeds.end());
    if (checks_part && is_timed) s_seeds.resize(s_seeds.size() - 2);
    return s_seeds;
  };
  if (!opt.matrix_path.empty()) {
    req.matrix_path = opt.matrix_path;
    const std::vector<uint64_t> m_seeds = split_seeds(seeds, !opt.check_only);
    if (!m_seeds.empty()) req.checks.push_back({opt.matrix_shape, "matrix", m_seeds});
    if (!opt.check_only && !checks_part) req.timings.push_back({opt.matrix_shape, "matrix", seeds.back()});
  }
  std::vector<Shape> random;
  if (opt.matrix_path.empty() && !timing_part && opt.random_shapes > 0) random = random_shapes(spec, opt.shape_seed, opt.random_shapes);
  for (const char* sweep : {"paper", "heldout", "random", "large"}) {
    if (!opt.matrix_path.empty()) break;
    const bool is_timed = timed(sweep);
    if (!checked(sweep) && std::string(sweep) != "random") continue;
    if (timing_part && !is_timed) continue;
    for (const Shape& s : std::string(sweep) == "random" ? random : spec.sweep(sweep)) {
      // Large shapes are checked with two seeds: their cost is in the timing, not the seeds.
      const std::vector<uint64_t> s_seeds =
          split_seeds(std::string(sweep) == "large" ? std::vector<uint64_t>{1, 2} : seeds, is_timed);
      if (!s_seeds.empty()) req.checks.push_back({s, sweep, s_seeds});
      if (is_timed && !checks_part) req.timings.push_back({s, sweep, s_seeds.back()});
    }
  }
  for (const auto& c : req.checks) res.checks_total += static_cast<int>(c.seeds.size());

  const std::string dir =
      opt.work_dir.empty() ? launch_work_dir(opt.launcher, spec.name + "-" + res.precision + "-" + contender) : opt.work_dir;
  fs::create_directories(dir);
  const std::string req_path = dir + "/request.json";
  std::ofstream(req_path) << json(req).dump(1);

  const double call_timeout = opt.call_timeout_s ? *opt.call_timeout_s : spec.call_timeout_s * opt.call_timeout_scale;
  std::vector<std::string> inner = opt.wrapper;  // the sanitizer runs inside the job step, around the runner
  for (const std::string& a : {runner_path(opt.runner), req_path, std::string("3")}) inner.push_back(a);
  SpawnOptions so;
  try {
    const LaunchCommand lc =
        launch_command(opt.launcher, opt.launcher.slurm() ? srun_program(opt.launcher) : "", inner, 3, kEvalJobName);
    so.argv = lc.argv;
    so.report_on_stdout = lc.report_on_stdout;
    so.term_grace_s = lc.term_grace_s;
  } catch (const std::runtime_error& e) {
    res.disposition = disposition::harness_error;
    res.message = std::string("harness_error: ") + e.what();
    return res;
  }
  so.log_path = dir + "/runner.log";
  so.initial_timeout_s = first_line_timeout(opt.launcher, 120);
  so.report_fd = 3;
  so.env = runner_environment(opt.env, std::getenv("GLIBC_TUNABLES"));

  std::string phase = "start", phase_shape, fatal_disp, fatal_msg;
  uint64_t phase_seed = 0;
  bool done = false;
  std::vector<json> checks;
  std::vector<json> timings;
  std::vector<json> sequence;  // check and timing events in arrival order
  std::string foreign;         // the first report line that is not this evaluation's runner's
  bool any_line = false;
  const ProcessResult spawned = run_process(so, [&](const std::string& line) -> double {
    any_line = true;
    const json j = json::parse(line, nullptr, false);
    // Only the verifier holds the report pipe, and it tags every line with the request's token:
    // anything else did not come from it, and the evaluation cannot be trusted.
    if (j.is_discarded() || !j.is_object() || !j.contains("event") || !j["event"].is_string() ||
        j.value("token", std::string()) != req.token) {
      if (foreign.empty()) foreign = line.substr(0, 120);
      return 0;
    }
    const std::string ev = j["event"];
    if (ev == "phase") {
      phase = j.value("phase", "");
      phase_shape = j.value("shape", "");
      phase_seed = j.value("seed", uint64_t{0});
      const double t = j.value("timeout_s", 0.0);
      return phase == "call" ? call_timeout : t;
    }
    if (ev == "check" || ev == "timing") {
      const json& sec = j.contains("seconds") ? j["seconds"] : json();
      if (sec.is_object()) {
        for (const auto& [k, v] : sec.items())
          if (v.is_number()) res.phase_seconds[k] += v.get<double>();
      } else if (sec.is_number()) {
        res.phase_seconds[ev] += sec.get<double>();
      }
    }
    if (ev == "check") checks.push_back(j);
    if (ev == "timing") timings.push_back(j);
    if (ev == "check" || ev == "timing") sequence.push_back(j);
    if (ev == "fatal") {
      fatal_disp = j.value("disposition", disposition::harness_error);
      fatal_msg = j.value("message", "");
    }
    if (ev == "done") done = true;
    return 0;
  });
  const ProcessResult pr = as_local_result(opt.launcher, spawned);
  res.seconds = pr.seconds;
  res.log_tail = pr.log_tail;
  // srun could not start the step (no allocation, a bad option, the runner not on the nodes):
  // the harness's problem, never the kernel's.
  if (const std::string why = launch_failure(opt.launcher, pr, any_line, pr.log_tail); !why.empty()) {
    res.disposition = disposition::harness_error;
    res.message = "harness_error: " + why;
    return res;
  }
  const std::string where = phase_shape.empty() ? "" : " at " + phase_shape + " seed " + std::to_string(phase_seed);
  // The report must be the one the request asked for: every planned check and timing exactly
  // once, in order, from the runner that holds the token. Anything else is never a pass.
  std::string broken = foreign.empty() ? "" : "a report line not from this evaluation's runner: " + foreign;
  if (broken.empty()) broken = check_event_sequence(req, sequence, done);
  if (!broken.empty()) {
    res.disposition = disposition::harness_error;
    res.message = "harness_error: " + broken;
    return res;
  }

  // The first failing check decides, in the order the checks ran.
  for (const auto& c : checks) {
    std::string d = c.value("disposition", disposition::harness_error);
    // Work still running after the entry point returned explains (and outranks) a missing output.
    // Not under a wrapper: the sanitizer's instrumentation and its own synchronization make
    // device-busy gaps meaningless there (the unwrapped check judges them).
    if (opt.wrapper.empty() && judge_check_gap(c.value("gap_us", 0.0), c.value("call_us", 0.0), opt.policy) == disposition::unsynced)
      d = disposition::unsynced;
    if (d == disposition::passed) {
      ++res.checks_passed;
      continue;
    }
    if (res.disposition == disposition::not_run) {
      res.disposition = d;
      res.failure = c;
      const std::string msg = c.contains("detail") ? c["detail"].value("message", "") : "";
      res.message = d + " at " + c.value("shape_str", "") + " (" + c.value("sweep", "") + ", seed " +
                    std::to_string(c.value("seed", 0)) + "): " +
                    (d == disposition::unsynced ? "the device was still busy " + std::to_string(static_cast<int>(c.value("gap_us", 0.0))) +
                                                      " us after the entry point returned"
                                                : msg);
    }
  }
  if (res.disposition == disposition::not_run && !opt.wrapper.empty() && !pr.signaled &&
      pr.exit_code == disposition::kSanitizerExitCode) {
    res.disposition = disposition::sanitizer_error;
    std::string first;
    std::istringstream log(pr.log_tail);
    for (std::string l; std::getline(log, l);)
      if (first.empty() && l.rfind("========= ", 0) == 0 && l.find("ERROR SUMMARY") == std::string::npos &&
          l.find("COMPUTE-SANITIZER") == std::string::npos)  // the banner line
        first = l.substr(10);
    res.message = "sanitizer_error: " + (first.empty() ? std::string("compute-sanitizer reported errors") : first);
  }
  if (res.disposition == disposition::not_run) {
    if (!fatal_disp.empty()) {
      res.disposition = fatal_disp;
      res.message = fatal_disp + where + ": " + fatal_msg;
    } else if (pr.timed_out) {
      res.disposition = disposition::timeout;
      res.message = "timeout: no progress for " + std::to_string(static_cast<int>(phase == "call" ? call_timeout : so.initial_timeout_s)) +
                    " s during " + phase + where + " (killed)";
    } else if (pr.signaled) {
      res.disposition = disposition::crashed;
      res.message = std::string("crashed: ") + signal_name(pr.signal) + " during " + phase + where;
      const std::string l = last_log_line(pr.log_tail);
      if (!l.empty()) res.message += " (" + l + ")";
    } else if (!done) {
      res.disposition = disposition::crashed;
      res.message = "crashed: runner exited with code " + std::to_string(pr.exit_code) + " during " + phase + where;
      const std::string l = last_log_line(pr.log_tail);
      if (!l.empty()) res.message += " (" + l + ")";
    }
  }
  if (res.disposition != disposition::not_run) return res;

  // Every check passed: judge the timings.
  res.disposition = disposition::passed;
  for (const auto& t : timings) {
    ShapeTiming st;
    st.sweep = t.value("sweep", "");
    st.shape = t.at("shape").get<Shape>();
    // JSON objects are key-sorted; restore the spec's dimension order.
    for (const Shape& s : st.sweep == "matrix" ? std::vector<Shape>{opt.matrix_shape} : spec.sweep(st.sweep)) {
      Shape sorted = s;
      std::sort(sorted.dims.begin(), sorted.dims.end());
      Shape got = st.shape;
      std::sort(got.dims.begin(), got.dims.end());
      if (sorted == got) st.shape = s;
    }
    st.complexity = spec.complexity(st.shape);
    const Cost c = spec.cost(st.shape, p);
    st.roofline_us = roofline_us(c.bytes, c.flops, c.tensor && p == Precision::bf16, opt.ceilings);
    st.time = t.at("time_us").get<TimingStats>();
    const std::string after = t.value("after_timing", disposition::passed);
    // A wrong output of a timed call means the kernel skips work on repeated calls. The
    // impossibility floor: the bytes must cross DRAM (L2 is flushed) and the FLOPs take at least
    // the time of the device's fastest measured arithmetic (BF16 tensor cores), whatever the
    // precision (tensor-core emulation of FP32 included).
    const double dram_us = roofline_us(c.bytes, 0.0, false, opt.ceilings), flops_us = flop_floor_us(c, opt.ceilings);
    st.disposition = after != disposition::passed ? after : judge_timing(st.time, dram_us, opt.policy, flops_us);
    const bool worse = res.disposition == disposition::passed ||
                       (res.disposition == disposition::noisy && st.disposition != disposition::noisy);
    if (st.disposition != disposition::passed && worse) {
      res.disposition = st.disposition;
      res.failure = t;
      const std::string at = st.disposition + " at " + st.shape.str() + ": ";
      if (after != disposition::passed)
        res.message = at + "after repeated timed calls, " + t["after_detail"].value("message", std::string());
      else if (st.disposition == disposition::too_fast)
        res.message = at + "median " + std::to_string(st.time.median_us) + " us is impossible: its minimum DRAM traffic needs " +
                      std::to_string(dram_us) + " us at the measured bandwidth (limit " + std::to_string(opt.policy.too_fast_fraction) +
                      "x) and its FLOPs " + std::to_string(flops_us) + " us at the device's BF16 tensor peak (limit " +
                      std::to_string(opt.policy.too_fast_flop_fraction) + "x)";
      else if (st.disposition == disposition::unsynced)
        res.message = at + "device still busy " + std::to_string(static_cast<int>(st.time.wall_gap_p90_us)) +
                      " us after the entry point returned (in at least a tenth of " + std::to_string(st.time.n) + " timed calls)";
      else
        res.message = at + "relative noise " + std::to_string(st.time.noise) + " after " + std::to_string(st.time.n) + " samples";
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
  return res;
}

json query_device(const std::string& mode, const std::string& runner, const Launcher& launcher) {
  RunRequest req;
  req.mode = mode;
  const std::string dir = launch_work_dir(launcher, "device-" + mode);
  std::ofstream(dir + "/request.json") << json(req).dump();
  const LaunchCommand lc = launch_command(launcher, launcher.slurm() ? srun_program(launcher) : "",
                                          {runner_path(runner), dir + "/request.json", "3"}, 3, kDeviceJobName);
  SpawnOptions so;
  so.argv = lc.argv;
  so.report_on_stdout = lc.report_on_stdout;
  so.term_grace_s = lc.term_grace_s;
  so.log_path = dir + "/runner.log";
  so.initial_timeout_s = first_line_timeout(launcher, mode == "device" ? 300 : 60);
  json device, fatal;
  bool any_line = false;
  const ProcessResult pr = run_process(so, [&](const std::string& line) -> double {
    any_line = true;
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded()) return 0;
    if (j.value("event", "") == "device") device = j;
    if (j.value("event", "") == "fatal") fatal = j;
    return 0;
  });
  if (!device.is_null()) return device;
  if (const std::string why = launch_failure(launcher, pr, any_line, pr.log_tail); !why.empty())
    throw std::runtime_error("cannot query the GPU through Slurm: " + why);
  std::string why = fatal.is_null() ? last_log_line(pr.log_tail) : fatal.value("message", "");
  if (why.find("cudaErrorNoDevice") != std::string::npos || why.find("cudaErrorInsufficientDriver") != std::string::npos ||
      why.find("no CUDA-capable") != std::string::npos || why.find("driver") != std::string::npos)
    throw std::runtime_error("no usable CUDA device: this command needs an NVIDIA GPU (" + why + ")");
  throw std::runtime_error("cannot query the GPU: " + (why.empty() ? "runner failed" : why));
}

json device_info(bool refresh, const std::string& runner, const Launcher& launcher) {
  const json id = query_device("identify", runner, launcher);
  const fs::path cache = fs::path(default_cache_dir()) / ("device-" + id.value("uuid", std::string("unknown")) + ".json");
  std::error_code ec;
  if (!refresh && fs::exists(cache, ec)) {
    std::ifstream f(cache);
    json j = json::parse(f, nullptr, false);
    if (!j.is_discarded() && j.contains("dram_bandwidth_gbs")) {
      j["cached"] = true;
      j["device_count"] = id.value("device_count", 1);
      return j;
    }
  }
  json d = query_device("device", runner, launcher);
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
  return c;
}

// ---- a ContenderResult as JSON and back (the run store)

namespace {
json shape_pairs(const Shape& s) {
  json a = json::array();
  for (const auto& d : s.dims) a.push_back({d.first, d.second});
  return a;
}
Shape shape_from_pairs(const json& a) {
  Shape s;
  for (const json& d : a) s.dims.emplace_back(d.at(0).get<std::string>(), d.at(1).get<int64_t>());
  return s;
}
}  // namespace

json result_to_json(const ContenderResult& r) {
  json timings = json::array();
  for (const ShapeTiming& t : r.timings) {
    json tj;
    to_json(tj, t.time);
    timings.push_back({{"sweep", t.sweep},
                       {"shape", shape_pairs(t.shape)},
                       {"shape_str", t.shape.str()},
                       {"complexity", t.complexity},
                       {"roofline_us", t.roofline_us},
                       {"time_us", tj},
                       {"disposition", t.disposition}});
  }
  return {{"task", r.task},
          {"precision", r.precision},
          {"contender", r.contender},
          {"kernel", r.kernel},
          {"disposition", r.disposition},
          {"message", r.message},
          {"failure", r.failure},
          {"timings", timings},
          {"checks_passed", r.checks_passed},
          {"checks_total", r.checks_total},
          {"seconds", r.seconds},
          {"phase_seconds", r.phase_seconds},
          {"sanitized", r.sanitized},
          {"log_tail", r.log_tail}};
}

ContenderResult result_from_json(const json& j) {
  ContenderResult r;
  r.task = j.value("task", "");
  r.precision = j.value("precision", "");
  r.contender = j.value("contender", "");
  r.kernel = j.value("kernel", "");
  r.disposition = j.value("disposition", disposition::not_run);
  r.message = j.value("message", "");
  r.failure = j.value("failure", json());
  r.checks_passed = j.value("checks_passed", 0);
  if (j.contains("phase_seconds") && j["phase_seconds"].is_object())
    r.phase_seconds = j["phase_seconds"].get<std::map<std::string, double>>();
  if (j.contains("sanitized") && j["sanitized"].is_array()) r.sanitized = j["sanitized"].get<std::vector<std::string>>();
  r.checks_total = j.value("checks_total", 0);
  r.seconds = j.value("seconds", 0.0);
  r.log_tail = j.value("log_tail", "");
  for (const json& t : j.value("timings", json::array())) {
    ShapeTiming st;
    st.sweep = t.value("sweep", "");
    st.shape = shape_from_pairs(t.value("shape", json::array()));
    st.complexity = t.value("complexity", std::uint64_t{0});
    st.roofline_us = t.value("roofline_us", 0.0);
    from_json(t.at("time_us"), st.time);
    st.disposition = t.value("disposition", "");
    r.timings.push_back(std::move(st));
  }
  return r;
}


}  // namespace mskb
