// `mskb rerun REPORT.json`: runs a report's run again on the GPU at hand, from the report's
// "reproduce" record (the same tasks, precisions, contenders, kernel files, sweeps, shape seed
// and random shapes, seeds, timing), through the normal suite path, and shows per entry how far
// the new numbers are from the report's (mskb/harness/reproduce.hpp; the matching and ratios are
// mskb compare's), judged by the spread model's intervals (mskb/core/spread.hpp) or a flat
// --tolerance. `--against FILE` judges a run of the same record saved earlier (a rerun made on
// another lease) instead of running, without a GPU. Exit 0: the rerun reproduces the report (under the model: no entry differs
// and no more checks outside their intervals than chance explains, mskb/report/rerun.hpp; with --tolerance: every entry
// within it); 1: it does not; 2: a usage error (no record, a kernel file missing or changed).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/harness/reproduce.hpp"
#include "mskb/harness/settings.hpp"
#include "mskb/harness/suite.hpp"
#include "mskb/report/document.hpp"
#include "mskb/report/html.hpp"
#include "mskb/report/markdown.hpp"
#include "mskb/report/numbers.hpp"
#include "mskb/report/rerun.hpp"
#include "mskb/report/text.hpp"
#include "mskb/util/command_line.hpp"

namespace mskb::cli {

namespace {

using json = nlohmann::json;

struct RerunOptions {
  std::string input, json_path, md_path, html_path;
  std::string against;  // --against FILE: judge that report instead of running (no GPU)
  double tolerance = 0;
  bool flat = false;  // --tolerance given: a flat check instead of the spread model
  bool allow_changed = false, quiet = false;
  std::vector<int> gpus;
};

json read_old_report(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("rerun: cannot read " + path);
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded()) throw std::invalid_argument("rerun: " + path + " is not valid JSON");
  return j;
}

// Result lines on stderr (on a terminal the evaluation in flight too); -q: none.
Progress stderr_lines(bool quiet) {
  const bool tty = ::isatty(2) == 1;
  return [quiet, tty](const std::string& line, bool final_line) {
    if (quiet || (!tty && !final_line)) return;
    if (tty) std::fprintf(stderr, "\r\033[K%s%s", line.c_str(), final_line ? "\n" : "");
    else std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
  };
}

// The plan of the report's record, its files checked: a missing one refuses, a changed one too
// unless --allow-changed (then each is named on stderr).
SuitePlan plan_of(const RerunOptions& o, const json& record) {
  SuitePlan plan;
  try {
    plan = plan_from_record(record);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("rerun: " + o.input + ": " + e.what());
  }
  const std::vector<FileChange> changes = changed_files(record, plan);
  const std::string more = changes.size() > 1 ? fmt::format(" (and {} more)", changes.size() - 1) : std::string();
  for (const FileChange& c : changes)
    if (c.missing)
      throw std::invalid_argument("rerun: " + o.input + ": " + c.path + " (" + c.what + ") is missing; the report's run cannot be run again" + more);
  if (!changes.empty() && !o.allow_changed)
    throw std::invalid_argument("rerun: " + o.input + ": a file changed since the report: " + changes.front().line() + more +
                                "; --allow-changed runs it anyway");
  for (const FileChange& c : changes) std::fprintf(stderr, "mskb rerun: warning: %s\n", c.line().c_str());
  // Task files as mskb run takes them (their references built: one that does not build fails
  // here, before any GPU work); the precisions are the report's.
  try {
    for (const std::string& t : plan.tasks)
      if (const TaskFile* tf = registered_task_file(t)) (void)use_task_file(tf->absolute_path, "", plan);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("rerun: " + o.input + ": " + e.what());
  }
  plan.gpus = o.gpus;
  plan.command_line = invocation();
  plan.eval.settings = Settings::from_environment();  // this run's MSKB_* variables, read once here
  return plan;
}

json settings_of(const json& report) {
  return report.contains("reproduce") && report["reproduce"].is_object() ? report["reproduce"].value("settings", json()) : json();
}

bool records_includes(const json& settings) {
  if (!settings.is_object() || !settings.contains("files") || !settings["files"].is_array()) return false;
  for (const json& f : settings["files"])
    if (f.is_object() && f.contains("includes")) return true;
  return false;
}

void drop_includes(json& settings) {
  if (settings.is_object() && settings.contains("files") && settings["files"].is_array())
    for (json& f : settings["files"])
      if (f.is_object()) f.erase("includes");
}

// --against: a report saved earlier (a rerun made on another machine, say) judged as the rerun.
// It must be a run of the same record: the same settings (tasks, kernels and their local headers,
// shape seed, sweeps, timing); its own comparison, if it has one, is replaced. Where one of the two
// was made before mskb recorded the kernels' local headers, they are left out of the comparison.
json against_report(const RerunOptions& o, const json& old) {
  json fresh = read_old_report(o.against);
  if (!fresh.is_object() || !fresh.contains("results"))
    throw std::invalid_argument("rerun: --against " + o.against + " is not a report (mskb run|check --json)");
  json a = settings_of(old), b = settings_of(fresh);
  if (!records_includes(a) || !records_includes(b)) {
    drop_includes(a);
    drop_includes(b);
  }
  if (a != b) {
    std::string first = "its reproduce record is missing";
    if (b.is_object())
      for (auto it = a.begin(); it != a.end(); ++it)
        if (!b.contains(it.key()) || b[it.key()] != it.value()) {
          first = "first: \"" + it.key() + "\"";
          break;
        }
    throw std::invalid_argument("rerun: --against " + o.against + " is not a run of " + o.input + "'s record: the settings differ (" + first + ")");
  }
  fresh.erase("rerun_of");
  return fresh;
}

void run_rerun(const RerunOptions& o) {
  const json old = read_old_report(o.input);
  for (const std::string& out : {o.json_path, o.md_path, o.html_path}) {
    std::error_code ec;
    if (!out.empty() && out != "-" && std::filesystem::equivalent(out, o.input, ec))
      throw std::invalid_argument("rerun: " + out + " is the report itself: write the rerun to another file");
  }
  if (const std::string why = reproduce_unavailable(old); !why.empty())
    throw std::invalid_argument("rerun: " + o.input + " cannot be run again: " + why);
  json fresh;
  if (!o.against.empty()) {
    fresh = against_report(o, old);
  } else {
    const SuitePlan plan = plan_of(o, old["reproduce"]);
    if (!o.quiet) {
      const json& argv = old["reproduce"].value("argv", json());
      std::string cmd;
      if (argv.is_array())
        for (const json& a : argv) cmd += (cmd.empty() ? "" : " ") + a.get<std::string>();
      std::fprintf(stderr, "mskb rerun: %s%s\n", o.input.c_str(), cmd.empty() ? "" : (" (" + cmd + ")").c_str());
    }
    fresh = report_json(run_suite(plan, stderr_lines(o.quiet)));
  }
  const json comparison = o.flat ? rerun_comparison(old, fresh, o.tolerance) : rerun_comparison(old, fresh, RerunJudge{});
  fresh["rerun_of"] = {{"report", o.input}, {"comparison", comparison}};

  std::ostream& text = o.json_path == "-" ? std::cerr : std::cout;
  text << render_rerun_text(comparison);
  if (!o.json_path.empty()) write_json(fresh, o.json_path);
  if (!o.md_path.empty() || !o.html_path.empty()) {
    const std::string sweep = comparison["sweeps"].empty() ? std::string("paper") : comparison["sweeps"][0].get<std::string>();
    const json cmp = compare_data({old, fresh}, {"report", "rerun"}, sweep);
    if (!o.md_path.empty()) write_text(render_rerun_markdown(comparison, render_compare_markdown(cmp)), o.md_path);
    if (!o.html_path.empty()) write_text(render_rerun_html(comparison, render_compare_html(cmp, {o.input, "rerun"})), o.html_path);
  }
  if (!rerun_consistent(comparison)) throw CommandExit(1);
}

}  // namespace

void add_rerun_command(CLI::App& app) {
  auto o = std::make_shared<RerunOptions>();
  auto* cmd = app.add_subcommand("rerun",
                                 "Run a report's run again on this machine (its \"reproduce\" record: same tasks, kernels, shape seed, "
                                 "settings) and show per entry how far the new times and P are from the report's");
  cmd->add_option("report", o->input, "The JSON report (mskb run|check --json)")->required()->check(existing_file());
  add_json_option(cmd, o->json_path, "Write the new report (with the comparison under \"rerun_of\")");
  cmd->add_option("--markdown", o->md_path, "Write the comparison as Markdown to FILE")->type_name("FILE");
  cmd->add_option("--html", o->html_path, "Write the comparison as an HTML page to FILE (mskb compare's, with the reproduction first)")
      ->type_name("FILE");
  CLI::Option* tolerance = cmd->add_option("--tolerance", o->tolerance,
                  "A flat check instead of the spread model's intervals: the relative difference of an entry's median times "
                  "(geometric mean over its shapes) and of its P within which it reproduced, e.g. 0.1")
      ->check(mskb::positive());
  cmd->add_flag("--allow-changed", o->allow_changed,
                "Run even when a kernel file, task file or matrix changed since the report (a missing one still refuses)");
  cmd->add_option("--gpus", o->gpus, "GPU ordinals to spread the work over, e.g. 0,1 (default: every visible GPU)")->delimiter(',');
  cmd->add_option("--against", o->against,
                  "Judge FILE, a run of the same record saved earlier (a rerun made on another machine), instead of running: "
                  "no GPU needed; its own comparison is replaced")
      ->type_name("FILE")
      ->check(existing_file());
  cmd->add_flag("-q,--quiet", o->quiet, "No progress on stderr");
  cmd->footer(
      "An entry reproduced when its correctness is the same and its P and median time (beside the whole run's shift at its time "
      "scales) fall within the intervals of the spread model (between processes on the same GPU, between leases otherwise; "
      "docs/harness.md sections 5 and 12), or outside some by no more than the simultaneous bound of all the run's checks allows; "
      "'host moved': its call time beyond that bound, its device time not; or within --tolerance.\n"
      "Exit 0: reproduced (under the model: no entry differs and no more checks outside their intervals than chance explains); "
      "1: not (the entries are named); 2: the report cannot be run again (one line says why).");
  cmd->callback([o, tolerance] {
    o->flat = tolerance->count() > 0;
    run_rerun(*o);
  });
}

}  // namespace mskb::cli
