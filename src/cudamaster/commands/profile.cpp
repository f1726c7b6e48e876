// `cudamaster profile`: the hardware analysis of one kernel. On a GPU machine it builds the
// kernel, profiles one call under Nsight Compute and prints the bottleneck class with the metrics
// that matter for it (or falls back to the speed-of-light model when counters are unavailable);
// offline it reads an exported CSV or .ncu-rep. `--token-report` compares the filtered and the
// full rendering of each file (the >= 30 % token reduction benchmark). `--executor slurm` runs
// ncu (and every other GPU process) as a Slurm job step with one GPU; the build stays here.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands/commands.hpp"
#include "commands/executor_options.hpp"
#include "cudamaster/profile/profiler.hpp"
#include "mskb/util/command_line.hpp"

namespace cudamaster::cli {
namespace {

namespace prof = cudamaster::profile;
using nlohmann::json;

struct ProfileOptions {
  std::string task;
  std::string kernel = "baseline";
  std::string precision = "fp32";
  std::string shape;
  std::string mode = "filtered";
  std::vector<std::string> imports;
  std::string json;  // --json: FILE, or "-" for stdout
  bool token_report = false;
  double min_reduction = 0.30;
  double timeout_s = 300;
  std::string report_dir;
  std::string runner;
  bool allow_libraries = false;
  bool no_fallback = false;
  ExecutorOptions executor;
};

std::string dump(const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace); }

[[noreturn]] void fail(const ProfileOptions& o, const std::string& kind, const std::string& message, int code) {
  if (!o.json.empty()) write_json_output(dump({{"ok", false}, {"error", {{"kind", kind}, {"message", message}}}}), o.json);
  fmt::print(stderr, "cudamaster profile: {}: {}\n", kind, message);
  throw CommandExit(code);
}

void print_outcome(const prof::ProfileOutcome& out, prof::RenderMode mode) {
  const std::string text = prof::render(out, mode);
  if (!text.empty()) {
    fmt::print("{}", text);
  } else {
    const auto& c = out.classification;
    fmt::print("bottleneck: {} (confidence {:.2f}, source {})\n", prof::to_string(c.cls), c.confidence, out.source);
  }
}

void run_token_report(const ProfileOptions& o) {
  std::vector<prof::TokenReport> reports;
  for (const auto& f : o.imports) reports.push_back(prof::token_report(prof::profile_import(f), f));
  double min_a = 1, min_p = 1;
  for (const auto& r : reports) {
    min_a = std::min(min_a, r.reduction_approx);
    min_p = std::min(min_p, r.reduction_pieces);
  }
  const bool ok = min_a >= o.min_reduction && min_p >= o.min_reduction;
  if (!o.json.empty()) {
    json files = json::array();
    for (const auto& r : reports) files.push_back(prof::to_json(r));
    write_json_output(dump({{"rule", "approx = ceil(chars/4); pieces = runs of [A-Za-z0-9] + each other non-space character"},
                            {"files", files},
                            {"min_reduction_approx", min_a},
                            {"min_reduction_pieces", min_p},
                            {"target", o.min_reduction},
                            {"ok", ok}}),
                      o.json);
  }
  if (o.json != "-") {
    fmt::print("token rule: approx = ceil(chars/4); pieces = runs of [A-Za-z0-9] + each other non-space character\n");
    fmt::print("{:<28} {:>3} {:<17} {:>8} {:>8} {:>7}  {:>8} {:>8} {:>7}\n", "file", "krn", "class", "full~", "filt~",
               "red~", "full_pc", "filt_pc", "red_pc");
    for (const auto& r : reports) {
      std::string name = r.file.substr(r.file.find_last_of('/') == std::string::npos ? 0 : r.file.find_last_of('/') + 1);
      fmt::print("{:<28} {:>3} {:<17} {:>8} {:>8} {:>6.1f}%  {:>8} {:>8} {:>6.1f}%\n", name, r.kernels, r.cls,
                 r.full.approx, r.filtered.approx, 100 * r.reduction_approx, r.full.pieces, r.filtered.pieces,
                 100 * r.reduction_pieces);
    }
    fmt::print("smallest reduction: {:.1f}% (approx), {:.1f}% (pieces); target >= {:.0f}%: {}\n", 100 * min_a,
               100 * min_p, 100 * o.min_reduction, ok ? "met" : "MISSED");
  }
  if (!ok) throw CommandExit(1);
}

void run_profile(const ProfileOptions& o, const CLI::App& cmd) {
  prof::RenderMode mode{};
  try {
    mode = prof::parse_render_mode(o.mode);
  } catch (const std::invalid_argument& e) {
    fail(o, "usage", e.what(), 2);
  }
  mskb::Launcher launcher;
  try {
    launcher = make_launcher(cmd, o.executor, ".cudamaster-slurm", "profile");
  } catch (const std::invalid_argument& e) {
    fail(o, "usage", e.what(), 2);
  } catch (const std::runtime_error& e) {
    fail(o, "launch_failed", e.what(), 1);
  }
  prof::NcuOptions import_ncu;
  import_ncu.launcher = launcher;
  if (o.task.empty() == o.imports.empty()) fail(o, "usage", "give either --task T or --import FILE", 2);
  if (o.token_report && o.imports.empty()) fail(o, "usage", "--token-report works on --import files", 2);
  try {
    if (o.token_report) return run_token_report(o);
    if (!o.imports.empty()) {
      json all = json::array();
      for (std::size_t i = 0; i < o.imports.size(); ++i) {
        const prof::ProfileOutcome out = prof::profile_import(o.imports[i], import_ncu);
        if (!o.json.empty()) all.push_back(prof::to_json(out, mode));
        if (o.json == "-") continue;
        if (o.imports.size() > 1) fmt::print("{}== {}\n", i ? "\n" : "", o.imports[i]);
        print_outcome(out, mode);
      }
      if (!o.json.empty()) write_json_output(dump(all.size() == 1 ? all[0] : all), o.json);
      return;
    }
    prof::TaskProfileOptions t;
    t.task = o.task;
    t.kernel = o.kernel;
    try {
      t.precision = mskb::parse_precision(o.precision);
    } catch (const std::invalid_argument& e) {
      fail(o, "usage", e.what(), 2);
    }
    t.shape = o.shape;
    t.allow_libraries = o.allow_libraries;
    t.runner = o.runner;
    t.report_dir = o.report_dir;
    t.sol_fallback = !o.no_fallback;
    t.ncu.timeout_s = o.timeout_s;
    t.launcher = launcher;
    const prof::ProfileOutcome out =
        prof::profile_task(t, [](const std::string& s) { fmt::print(stderr, "cudamaster profile: {}\n", s); });
    if (out.source == "sol_model")
      fmt::print(stderr, "cudamaster profile: class from the speed-of-light model, not from counters ({})\n", out.message);
    if (!o.json.empty()) {
      json j = prof::to_json(out, mode);
      j["ok"] = true;
      write_json_output(dump(j), o.json);
    }
    if (o.json != "-") print_outcome(out, mode);
  } catch (const prof::ProfileFailure& e) {
    // No GPU shows up as whatever step needed it first (the ncu run, the timed call): say so.
    if (const std::optional<std::string> why = mskb::no_cuda_device(e.what()))
      fail(o, "no_device", "no CUDA device (" + *why + ")", mskb::kNoDeviceExitCode);
    fail(o, e.kind(), e.what(), e.exit_code());
  }
}

}  // namespace

void add_profile_command(CLI::App& app) {
  auto o = std::make_shared<ProfileOptions>();
  CLI::App* cmd = app.add_subcommand(
      "profile", "Nsight Compute hardware analysis: bottleneck class (Otsu) and the metrics that matter for it");
  cmd->add_option("--task", o->task, "Task to profile (GPU): builds the kernel and profiles one call under ncu");
  cmd->add_option("--kernel", o->kernel, "baseline (default), vendor, or a kernel file")
      ->check(CLI::Validator(
          [](std::string& k) { return k == "baseline" || k == "vendor" ? std::string() : mskb::existing_file()(k); }, "baseline|vendor|FILE"));
  cmd->add_option("--precision", o->precision, "fp32 (default) or bf16");
  cmd->add_option("--shape", o->shape, "k=v,... overriding dims of the default shape (the largest paper shape)");
  cmd->add_option("--profile", o->mode, "filtered (default), full or none: what the rendering shows");
  cmd->add_option("--import", o->imports, "Exported raw-page CSV (offline) or .ncu-rep (needs ncu); repeatable")
      ->check(mskb::existing_file());
  mskb::add_json_option(cmd, o->json, "Write the analysis (or the token report) as JSON");
  cmd->add_flag("--token-report", o->token_report, "For each --import file, tokens of the filtered vs the full rendering");
  cmd->add_option("--min-reduction", o->min_reduction, "--token-report fails below this reduction (default 0.30)");
  cmd->add_option("--timeout", o->timeout_s, "Limit for the ncu run in seconds (default 300)")->check(mskb::positive());
  cmd->add_option("--report-dir", o->report_dir, "Keep the .ncu-rep, CSV and logs in this folder");
  cmd->add_option("--runner", o->runner, "mskb-runner to use (default: $MSKB_RUNNER or next to cudamaster)");
  cmd->add_flag("--allow-libraries", o->allow_libraries, "Let a user kernel link vendor libraries (// mskb-link:)");
  cmd->add_flag("--no-fallback", o->no_fallback, "Fail instead of using the speed-of-light model without counters");
  add_executor_options(*cmd, o->executor, false);
  cmd->callback([o, cmd] { run_profile(*o, *cmd); });
}

}  // namespace cudamaster::cli
