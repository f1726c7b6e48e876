#include "cudamaster/profile/profiler.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mskb/harness/compiler.hpp"
#include "mskb/harness/evaluator.hpp"
#include "mskb/protocol/events.hpp"
#include "mskb/util/process.hpp"
#include "mskb/protocol/request.hpp"
#include "mskb/core/registry.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace cudamaster::profile {

namespace {

// Removes the per-run temp dir unless the user asked to keep the files.
class WorkDir {
 public:
  // `parent`: where a temp dir goes (a Slurm launcher's shared root; empty: the system temp dir).
  WorkDir(const std::string& keep, const std::string& parent) : keep_(!keep.empty()) {
    path_ = keep_ ? keep : make_temp_dir("cm-profile", parent);
    fs::create_directories(path_);
  }
  ~WorkDir() {
    std::error_code ec;
    if (!keep_) fs::remove_all(path_, ec);
  }
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;
  const std::string& path() const { return path_; }
  bool kept() const { return keep_; }

 private:
  bool keep_;
  std::string path_;
};

void say(const Progress& p, const std::string& s) {
  if (p) p(s);
}

std::string first_error(const mskb::CompileResult& r) {
  for (const auto& d : r.diagnostics)
    if (d.severity == "error") return fmt::format("{}:{}: {}", d.file, d.line, d.message);
  return r.error;
}

json shape_json(const mskb::Shape& s) {
  json j = json::object();
  for (const auto& d : s.dims) j[d.first] = d.second;
  return j;
}

struct Timing {
  double median_us = 0;
  int samples = 0;
};

// The harness's own timing of the entry point at one shape (correctness checked first).
Timing time_with_harness(const mskb::TaskSpec& spec, const TaskProfileOptions& o, const std::string& so,
                         const mskb::Shape& shape, const std::string& dir) {
  const mskb::RunRequest req = mskb::single_shape_request(spec, o.precision, so, shape, mskb::RunMode::evaluate);
  const std::string req_path = (fs::path(dir) / "timing-request.json").string();
  std::ofstream(req_path) << json(req).dump(1);
  mskb::LaunchCommand lc;
  try {
    lc = mskb::launch_command(o.launcher, o.launcher.slurm() ? mskb::srun_program(o.launcher) : "",
                              {mskb::runner_path(o.runner), req_path, "3"}, 3, mskb::kProfileJobName);
  } catch (const std::runtime_error& e) {
    throw ProfileFailure("harness_error", e.what());
  }
  mskb::SpawnOptions sp;
  sp.argv = lc.argv;
  sp.report_on_stdout = lc.report_on_stdout;
  sp.term_grace_s = lc.term_grace_s;
  if (!o.gpu.empty()) sp.env.push_back({"CUDA_VISIBLE_DEVICES", o.gpu});
  sp.log_path = (fs::path(dir) / "timing-runner.log").string();
  sp.initial_timeout_s = mskb::first_line_timeout(o.launcher, o.fallback_timeout_s);
  sp.report_fd = 3;
  std::optional<mskb::Disposition> fatal_disp, check_disp;
  std::string fatal_msg;
  Timing t;
  bool any_line = false;
  const mskb::ProcessResult pr = mskb::run_process(sp, [&](const std::string& line) -> double {
    any_line = true;
    const std::optional<mskb::RunnerEvent> ev = mskb::parse_runner_event(line);
    if (!ev) return 0;
    if (ev->kind == mskb::EventKind::fatal) {
      fatal_disp = ev->disposition.value_or(mskb::Disposition::harness_error);
      fatal_msg = ev->message;
    } else if (ev->kind == mskb::EventKind::check) {
      check_disp = ev->disposition;
    } else if (ev->kind == mskb::EventKind::timing && ev->time) {
      t.median_us = ev->time->median_us;
      t.samples = ev->time->n;
    }
    return 0;
  });
  if (const std::string why = mskb::launch_failure(o.launcher, pr, any_line, pr.log_tail); !why.empty())
    throw ProfileFailure("launch_failed", "timing the kernel in a Slurm job step: " + why);
  if (fatal_disp) {
    const std::string kind = fatal_disp == mskb::Disposition::no_device || fatal_msg.find("cudaErrorNoDevice") != std::string::npos
                                 ? "no_device"
                                 : "kernel_crash";
    throw ProfileFailure(kind, "timing the kernel failed (" + mskb::to_string(*fatal_disp) + "): " + fatal_msg);
  }
  if (pr.timed_out) throw ProfileFailure("timeout", "timing the kernel did not finish in time");
  if (check_disp && *check_disp != mskb::Disposition::passed)
    throw ProfileFailure("wrong_result", "the kernel is not correct at " + shape.str() + " (" + mskb::to_string(*check_disp) +
                                             "): its time would mean nothing");
  if (!(t.median_us > 0))
    throw ProfileFailure("harness_error", "the runner reported no timing (exit " + std::to_string(pr.exit_code) +
                                              "): " + mskb::tail_lines(pr.log_tail, 3));
  return t;
}

ProfileOutcome sol_fallback(const mskb::TaskSpec& spec, const TaskProfileOptions& o, const std::string& so,
                            const mskb::Shape& shape, const std::string& dir, const NcuError& why, const Progress& progress) {
  say(progress, "no hardware counters (" + why.describe() + "); classifying from the speed-of-light model and a timed run");
  const Timing t = time_with_harness(spec, o, so, shape, dir);
  json device;
  try {
    device = mskb::device_info(false, o.runner, o.launcher);
  } catch (const std::exception& e) {
    throw ProfileFailure("no_device", std::string("cannot read the device ceilings: ") + e.what());
  }
  const mskb::Ceilings ceil = mskb::ceilings_from(device);
  const mskb::Cost cost = spec.cost(shape, o.precision);
  SolInput in;
  in.bytes = cost.bytes;
  in.flops = cost.flops;
  in.tensor = cost.tensor && o.precision == mskb::Precision::bf16;
  in.measured_us = t.median_us;
  in.dram_bandwidth_gbs = ceil.dram_bandwidth_gbs;
  in.fp32_tflops = ceil.fp32_tflops;
  in.bf16_tflops = ceil.bf16_tflops;
  ProfileOutcome out;
  out.source = "sol_model";
  try {
    out.classification = classify_sol(in);
  } catch (const std::invalid_argument& e) {
    throw ProfileFailure("no_device", e.what());
  }
  out.message = why.describe();
  out.context["sol"] = {{"time_us", t.median_us},
                        {"samples", t.samples},
                        {"bytes", cost.bytes},
                        {"flops", cost.flops},
                        {"tensor", in.tensor},
                        {"roofline_us", mskb::roofline_us(cost.bytes, cost.flops, in.tensor, ceil)},
                        {"dram_bandwidth_gbs", ceil.dram_bandwidth_gbs},
                        {"fp32_tflops", ceil.fp32_tflops},
                        {"bf16_tflops", ceil.bf16_tflops},
                        {"device", device.value("name", std::string())}};
  out.context["ncu_error"] = {{"kind", to_string(why.kind)}, {"message", why.message}};
  return out;
}

}  // namespace

mskb::Shape default_profile_shape(const mskb::TaskSpec& spec) {
  if (spec.paper.empty()) throw std::invalid_argument("task " + spec.name + " has no paper shapes");
  const mskb::Shape* best = &spec.paper.front();
  uint64_t best_c = spec.complexity(*best);
  for (const auto& s : spec.paper) {
    const uint64_t c = spec.complexity(s);
    if (c >= best_c) {
      best = &s;
      best_c = c;
    }
  }
  return *best;
}

mskb::Shape apply_shape_override(const mskb::TaskSpec& spec, mskb::Shape base, const std::string& text) {
  std::string dims;
  for (const auto& d : base.dims) dims += (dims.empty() ? "" : ",") + d.first;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw std::invalid_argument("--shape expects k=v,... (got '" + item + "')");
    const std::string key = item.substr(0, eq), val = item.substr(eq + 1);
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(val, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != val.size() || v <= 0) throw std::invalid_argument("--shape: '" + val + "' is not a positive integer");
    bool found = false;
    for (auto& d : base.dims)
      if (d.first == key) {
        d.second = v;
        found = true;
      }
    if (!found) throw std::invalid_argument("--shape: task " + spec.name + " has no dimension '" + key + "' (dims: " + dims + ")");
  }
  return base;
}

std::string resolve_kernel_file(const mskb::TaskSpec& spec, const std::string& kernel, mskb::Precision p, bool* trusted) {
  const fs::path dir = fs::path(mskb::source_root()) / spec.folder;
  fs::path file;
  bool ours = false;
  const std::optional<mskb::ContenderKind> shipped = mskb::from_string<mskb::ContenderKind>(kernel);
  if (kernel.empty() || shipped == mskb::ContenderKind::baseline) {
    file = dir / (std::string("baseline_") + mskb::to_string(p) + ".cu");
    ours = true;
  } else if (shipped == mskb::ContenderKind::vendor) {
    if (spec.vendor.empty()) throw std::invalid_argument("task " + spec.name + " has no vendor contender");
    file = dir / "vendor.cu";
    ours = true;
  } else {
    file = kernel;
  }
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) throw std::invalid_argument("kernel file not found: " + file.string());
  if (!ours) {
    const fs::path canon = fs::weakly_canonical(file, ec), cdir = fs::weakly_canonical(dir, ec);
    const std::string c = canon.string(), d = cdir.string() + "/";
    ours = c.compare(0, d.size(), d) == 0;
  }
  if (trusted) *trusted = ours;
  return file.string();
}

ProfileOutcome profile_task(const TaskProfileOptions& o, const Progress& progress) {
  const mskb::TaskSpec* spec_ptr = nullptr;
  mskb::Shape shape;
  std::string file;
  bool trusted = false;
  try {
    spec_ptr = &mskb::get_task(o.task);
    shape = apply_shape_override(*spec_ptr, default_profile_shape(*spec_ptr), o.shape);
    file = resolve_kernel_file(*spec_ptr, o.kernel, o.precision, &trusted);
  } catch (const std::invalid_argument& e) {
    throw ProfileFailure("usage", e.what(), 2);
  }
  const mskb::TaskSpec& spec = *spec_ptr;

  say(progress, "building " + file);
  mskb::CompileOptions co;
  co.allow_libraries = trusted || o.allow_libraries;
  co.binary_policy = !trusted;  // a user's kernel runs in the runner only after the binary policy passed it
  const mskb::CompileResult built = mskb::compile_kernel(file, co);
  if (built.refused_policy) throw ProfileFailure("rejected_static", "cannot profile " + file + ": " + built.error);
  if (!built.ok) throw ProfileFailure("compile_error", "cannot build " + file + ": " + first_error(built));

  WorkDir work(o.report_dir, o.launcher.slurm() ? o.launcher.work_root : "");
  const mskb::RunRequest req = mskb::single_shape_request(spec, o.precision, built.so_path, shape, mskb::RunMode::profile);
  const std::string req_path = (fs::path(work.path()) / "request.json").string();
  std::ofstream(req_path) << json(req).dump(1);

  std::string runner;
  try {
    runner = mskb::runner_path(o.runner);
  } catch (const std::exception& e) {
    throw ProfileFailure("harness_error", e.what());
  }
  NcuOptions nopt = o.ncu;
  nopt.work_dir = work.path();
  nopt.launcher = o.launcher;
  if (!o.gpu.empty()) nopt.env.push_back({"CUDA_VISIBLE_DEVICES", o.gpu});
  const NcuRunner ncu(nopt);
  say(progress, fmt::format("profiling {} {} at {} under ncu", spec.name, mskb::to_string(o.precision), shape.str()));
  auto cap = ncu.profile({runner, req_path, "3"});

  ProfileOutcome out;
  if (cap) {
    try {
      out = analyze(parse_ncu_csv(cap.value().csv, cap.value().csv_path));
    } catch (const ProfileError& e) {
      throw ProfileFailure("bad_export", e.what());
    }
    json nj = {{"command", cap.value().command},
               {"profile_seconds", cap.value().profile_seconds},
               {"import_seconds", cap.value().import_seconds}};
    if (cap.value().call_us) nj["call_us"] = *cap.value().call_us;
    if (work.kept()) {
      nj["report"] = cap.value().report_path;
      nj["csv"] = cap.value().csv_path;
    }
    out.context["ncu"] = nj;
  } else {
    const NcuError& err = cap.error();
    if (!err.counters_unavailable() || !o.sol_fallback)
      throw ProfileFailure(to_string(err.kind), err.message + (err.log_tail.empty() ? "" : "\n" + err.log_tail));
    out = sol_fallback(spec, o, built.so_path, shape, work.path(), err, progress);
  }
  out.context["task"] = spec.name;
  out.context["precision"] = mskb::to_string(o.precision);
  out.context["shape"] = shape_json(shape);
  out.context["shape_str"] = shape.str();
  out.context["kernel"] = file;
  out.context["library"] = built.so_path;
  return out;
}

ProfileOutcome profile_import(const std::string& file, const NcuOptions& ncu) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) throw ProfileFailure("usage", "file not found: " + file, 2);
  ProfileData data;
  try {
    if (fs::path(file).extension() == ".ncu-rep") {
      auto csv = NcuRunner(ncu).import_report(file);
      if (!csv) throw ProfileFailure(to_string(csv.error().kind), csv.error().message);
      data = parse_ncu_csv(csv.value(), file);
    } else {
      data = load_ncu_csv(file);
    }
  } catch (const ProfileError& e) {
    throw ProfileFailure("bad_export", e.what());
  }
  ProfileOutcome out;
  try {
    out = analyze(std::move(data));
  } catch (const ProfileError& e) {
    throw ProfileFailure("bad_export", e.what());
  }
  out.context["import"] = file;
  return out;
}

}  // namespace cudamaster::profile
