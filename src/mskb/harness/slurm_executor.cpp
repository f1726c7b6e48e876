// The suite's Slurm executor (mskb/harness/slurm_executor.hpp).
#include "mskb/harness/slurm_executor.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "mskb/core/random_shapes.hpp"
#include "mskb/harness/compiler.hpp"
#include "mskb/harness/reproduce.hpp"
#include "mskb/harness/slurm_units.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace mskb {

namespace {

struct Unit {
  std::string task, precision;          // precision: fp32, bf16, or all (a user kernel judged on what it exports)
  std::vector<std::string> groups;      // "task|precision"
  std::string name;                     // the Slurm job name
  std::optional<json> report;           // the last report an attempt left
  bool done = false;
};

// This binary, by the path the compute nodes must share.
std::string self_path() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find the mskb binary (/proc/self/exe): " + ec.message());
  return p.string();
}

std::string random_token() {
  std::random_device rd;
  return fmt::format("{:06x}", rd() & 0xffffffu);
}

// The job names must be unique to this run (scancel --name) and say what runs.
std::string job_name(const std::string& token, const Unit& u) { return "mskb." + token + "." + u.task + "." + u.precision; }

std::optional<json> read_report(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("contenders") || !j.contains("device")) return std::nullopt;
  return j;
}

std::vector<Unit> make_units(const SuitePlan& plan, const std::vector<SuiteGroup>& groups) {
  std::vector<Unit> units;
  // A user kernel under --precision all is judged on the precisions it exports: its unit keeps
  // both precisions together so that it can tell (as a local run does).
  const bool by_task = plan.skip_missing_precisions && !plan.kernels.empty();
  for (const SuiteGroup& g : groups) {
    const std::string group = g.task + "|" + to_string(g.precision);
    if (by_task && !units.empty() && units.back().task == g.task) {
      units.back().groups.push_back(group);
      units.back().precision = "all";
      continue;
    }
    units.push_back({g.task, to_string(g.precision), {group}, "", std::nullopt, false});
  }
  return units;
}

// Every kernel of the run, built here once into the shared cache: the units find them there.
void build_here(const std::vector<SuiteGroup>& groups, const SuitePlan& plan, bool quiet) {
  std::vector<KernelFile> files;
  std::set<std::string> seen;
  for (const SuiteGroup& g : groups)
    for (const KernelFile& k : g.kernels)
      if (seen.insert(k.path).second) files.push_back(k);
  if (files.empty()) return;
  const std::vector<CompileResult> built = compile_all(files, plan.compile, plan.build_jobs);
  std::size_t cached = 0, failed = 0;
  for (const CompileResult& r : built) {
    cached += r.cache_hit ? 1 : 0;
    failed += r.ok ? 0 : 1;
  }
  if (!quiet)
    std::fprintf(stderr, "built %zu kernel%s here (%zu from the cache%s)\n", files.size(), files.size() == 1 ? "" : "s", cached,
                 failed ? fmt::format(", {} failed: their units report it", failed).c_str() : "");
}

// The report of the units so far, in the run's order (each group from its unit's report).
// `record`: the whole run's reproduce record (each unit's report has its own unit's).
json merged_report(const std::vector<Unit>& units, bool final_report, std::uint64_t shape_seed, const json& record,
                   const std::function<json(const std::vector<json>&)>& merge_reports) {
  std::vector<json> reports;
  json incomplete = json::array();
  for (const Unit& u : units) {
    if (u.report) reports.push_back(*u.report);
    if (final_report && !u.done)
      for (const std::string& g : u.groups) incomplete.push_back(g);
  }
  json out = reports.empty() ? json{{"device", json::object()}, {"contenders", json::array()}, {"results", json::array()}, {"scores", json::array()}}
                             : merge_reports(reports);
  out["shape_seed"] = shape_seed;
  if (!final_report || !incomplete.empty()) out["partial"] = true;
  else out.erase("partial");
  if (!incomplete.empty()) out["incomplete_groups"] = incomplete;
  out["reproduce"] = reproduce_observed(record, out);
  return out;
}

}  // namespace

SlurmRunResult run_suite_on_slurm(const SuitePlan& plan, const SlurmExecutor& executor, const SlurmRunHooks& hooks) {
  if (!hooks.merge) throw std::invalid_argument("run_suite_on_slurm: no report merge given");
  const std::string workdir = executor.launcher.work_root;
  SlurmUnitsOptions so;
  so.launcher = executor.launcher;
  so.max_jobs = executor.max_jobs;
  so.retries = executor.retries;
  (void)srun_program(so.launcher);  // a missing srun fails before any build
  auto note = [&](const std::string& line) {
    if (!hooks.quiet) std::fprintf(stderr, "%s\n", line.c_str());
  };

  std::size_t skipped = 0;
  const std::vector<SuiteGroup> groups = suite_groups(plan, &skipped);
  std::vector<Unit> units = make_units(plan, groups);
  if (skipped > 0)
    note(fmt::format("skipping {} (task, precision) group{} already complete in the previous report", skipped, skipped == 1 ? "" : "s"));
  const std::uint64_t shape_seed = plan.shape_seed != 0 ? plan.shape_seed : fresh_shape_seed();
  const json record = reproduce_record(plan, shape_seed);
  const std::string cache = plan.compile.cache_dir.empty() ? default_cache_dir() : plan.compile.cache_dir;
  if (node_local_path(workdir))
    note("note: the Slurm work folder " + workdir + " is node-local on most clusters; give --slurm-workdir on a shared filesystem");
  if (node_local_path(cache))
    note("note: the kernel cache " + cache + " is node-local on most clusters; set MSKB_CACHE_DIR to a shared folder");
  build_here(groups, plan, hooks.quiet);

  const std::string token = random_token();
  const fs::path dir = fs::path(workdir) / token;
  fs::create_directories(dir);
  std::vector<std::string> names;
  for (Unit& u : units) names.push_back(u.name = job_name(token, u));
  note(fmt::format("{} unit{} as Slurm jobs ({}; at most {} at once; jobs named mskb.{}.*)", units.size(), units.size() == 1 ? "" : "s",
                   describe(so.launcher), executor.max_jobs, token));
  // The jobs build nothing (the cache has every kernel) and run where srun puts them.
  so.env = {{"MSKB_CACHE_DIR", fs::absolute(cache).string()}};
  so.unset_env = {"CUDA_VISIBLE_DEVICES"};  // the job's GPU binding sets it on the node

  const std::string self = self_path();
  auto file_of = [&](std::size_t i, int attempt, const char* ext) {
    return (dir / fmt::format("{}.{}.{}.{}", units[i].task, units[i].precision, attempt, ext)).string();
  };
  std::size_t finished = 0;
  std::string gpu_model;
  SlurmUnitsCallbacks cb;
  cb.start = [&](std::size_t i, int attempt) {
    UnitAttempt a;
    a.command = {self};
    const auto args = hooks.unit_arguments(units[i].task, units[i].precision, shape_seed, file_of(i, attempt, "json"));
    a.command.insert(a.command.end(), args.begin(), args.end());
    a.log_path = file_of(i, attempt, "log");
    std::remove(file_of(i, attempt, "json").c_str());
    if (attempt == 1) note(fmt::format("{} {}: submitted", units[i].task, units[i].precision));
    return a;
  };
  cb.judge = [&](std::size_t i, int attempt, const ProcessResult& r, const std::string& log) {
    Unit& u = units[i];
    const std::optional<json> rep = read_report(file_of(i, attempt, "json"));
    if (rep) u.report = rep;
    const bool exited = !r.signaled && (r.exit_code == 0 || r.exit_code == 1);  // 1: a contender failed
    UnitVerdict v;
    v.ok = exited && rep && !rep->value("partial", false);
    if (!v.ok) {
      v.reason = exited && !rep ? "no report: " + slurm_failure(r, log) : slurm_failure(r, log);
      return v;
    }
    // Groups are compared within a run: every unit must have measured the same GPU model.
    const std::string gpu = (*rep)["device"].value("name", std::string());
    if (gpu_model.empty()) gpu_model = gpu;
    if (gpu != gpu_model) {
      u.report.reset();
      v.ok = false;
      v.reason = "ran on a " + gpu + ", other units on a " + gpu_model +
                 " (pin the GPU model: --gres gpu:TYPE:1 or --slurm-args --constraint=...)";
      return v;
    }
    u.done = true;
    ++finished;
    note(fmt::format("{} {}: done ({}/{} units, {} contender{}, {:.1f} s)", u.task, u.precision, finished, units.size(),
                     (*rep)["contenders"].size(), (*rep)["contenders"].size() == 1 ? "" : "s", r.seconds));
    if (hooks.on_report) hooks.on_report(merged_report(units, false, shape_seed, record, hooks.merge));
    return v;
  };
  cb.say = [&](const std::string& line) { note(line); };
  const SlurmUnitsOutcome out = run_slurm_units(names, so, cb);

  SlurmRunResult result;
  result.interrupted_by = out.interrupted_by;
  result.report = merged_report(units, out.interrupted_by == 0, shape_seed, record, hooks.merge);
  json failed = json::array();
  for (std::size_t i = 0; i < units.size(); ++i) {
    if (units[i].done) continue;
    ++result.failed_units;
    failed.push_back({{"task", units[i].task},
                      {"precision", units[i].precision},
                      {"reason", out.failed[i]},
                      {"attempts", out.attempts[i]},
                      {"log", out.attempts[i] > 0 ? file_of(i, out.attempts[i], "log") : std::string()}});
    if (out.interrupted_by == 0)  // a result, not progress: printed under --quiet too
      std::fprintf(stderr, "%s\n", fmt::format("FAILED unit {} {} after {} attempt{}: {} (log: {})", units[i].task, units[i].precision, out.attempts[i],
                       out.attempts[i] == 1 ? "" : "s", out.failed[i], failed.back()["log"].get<std::string>()).c_str());
  }
  if (!failed.empty() && out.interrupted_by == 0) result.report["failed_units"] = failed;
  if (hooks.on_report) hooks.on_report(result.report);
  if (out.interrupted_by != 0) {
    std::string cont = hooks.report_path.empty() || hooks.report_path == "-" ? std::string("its --json report")
                                                                              : hooks.report_path;
    std::fprintf(stderr, "interrupted: %zu Slurm job%s cancelled; %zu of %zu units finished; continue with --skip-done %s\n",
                 out.cancelled, out.cancelled == 1 ? "" : "s", finished, units.size(), cont.c_str());
  }
  return result;
}

}  // namespace mskb
