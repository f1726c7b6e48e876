// `mskb build`: builds (and caches) kernels without a GPU - the shipped ones of a task (or of a
// task file: its reference and baselines; which of them: --contenders, build_plan.hpp), --all, or
// --kernel files - and applies the binary policy to each (compile_all), one line per kernel as it
// ends and a live [done/total] line with an ETA on a terminal.
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "build_plan.hpp"
#include "commands.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/core/task_file.hpp"
#include "mskb/harness/build_info.hpp"
#include "mskb/harness/compiler.hpp"
#include "mskb/harness/suite.hpp"
#include "mskb/util/command_line.hpp"
#include "mskb/util/files.hpp"
#include "mskb/util/progress.hpp"

namespace fs = std::filesystem;

namespace mskb::cli {

namespace {

using json = nlohmann::json;

struct BuildOptions {
  std::vector<std::string> tasks;
  std::string task_file;
  bool all = false;
  std::vector<std::string> kernels;
  int jobs = 0;
  std::string arch;
  std::string json;  // FILE, or "-" for stdout
  bool allow_libraries = false;
  std::string contenders = kDefaultBuildContenders;
};

// The files of the command line: --all, --task or --task-file (its reference kernel, built like
// a baseline; its reference compiled too, or the file fails here) narrowed to --contenders,
// and the --kernel files.
BuildList build_list(const BuildOptions& o) {
  std::vector<std::string> names;
  std::vector<KernelFile> extra;
  if (o.all)
    for (const auto& t : all_tasks()) names.push_back(t.name);
  else if (!o.tasks.empty())
    for (const std::string& t : o.tasks) names.push_back(get_task(t).name);
  else if (!o.task_file.empty()) {
    const TaskFile& tf = register_task_file(o.task_file);  // one-line errors (file:line: key: ...)
    (void)compile_reference(tf);                           // the reference builds too, or the file fails here
    if (!tf.reference_kernel.empty()) extra.push_back({tf.reference_kernel, "reference", true});  // built like a baseline
    names.push_back(tf.spec.name);
  }
  for (const auto& k : o.kernels) extra.push_back({k, "kernel", false});
  return select_build_files(names, parse_build_contenders(o.contenders), extra);
}

// The JSON array, written to `path` ("-": stdout).
void write_build_json(const BuildList& list, const std::vector<CompileResult>& results, const std::string& path) {
  json out = json::array();
  for (std::size_t i = 0; i < list.files.size(); ++i) {
    const auto& r = results[i];
    json diags = json::array();
    for (const auto& d : r.diagnostics) diags.push_back({{"file", d.file}, {"line", d.line}, {"severity", d.severity}, {"message", d.message}});
    json item = {{"kernel", list.files[i].path}, {"ok", r.ok}, {"so", r.ok ? r.so_path : ""}, {"cache_hit", r.cache_hit},
                 {"seconds", r.seconds}, {"error", r.error}, {"diagnostics", diags}, {"policy", policy_to_json(r)}};
    if (const auto e = list.expect.find(list.files[i].path); e != list.expect.end()) item["expect"] = e->second;
    out.push_back(std::move(item));
  }
  write_json(out, path);
}

// The path as the user should read it: a shipped kernel relative to the source tree, a user's file
// as given.
std::string shown_path(const std::string& path) {
  std::string rel = fs::relative(path, source_root()).string();
  return rel.empty() || rel.rfind("..", 0) == 0 ? path : rel;
}

// Builds the list, one result (its lines: build_result_lines) as each build ends, on stdout (on
// stderr with --json -: stdout is the JSON's), and the count; returns the results by index.
// Progress on stderr (util/progress.hpp): on a terminal (or MSKB_PROGRESS=live) a live line,
// `[done/total] build  files in flight  elapsed  ETA`, with the result lines printed above it when
// they go to the same terminal; in a log just the result lines, each as it comes (stdout is
// line-buffered: mskb_main).
std::vector<CompileResult> build_with_progress(const BuildList& list, const CompileOptions& co, const BuildOptions& o, int& failed) {
  FILE* text = o.json == "-" ? stderr : stdout;
  const std::string arch = o.arch.empty() ? default_arch() + " (the default of this build; --arch to change)" : o.arch;
  std::fprintf(text, "kernels for %s: %zu to build\n", arch.c_str(), list.files.size());
  ProgressDisplay display(list.files.size());
  display.phase("build", list.files.size());
  // Live, and the result lines would land on the same terminal: print them above the live line.
  const bool above = display.mode() == ProgressMode::live && (text == stderr || ::isatty(::fileno(text)) == 1);
  std::mutex m;
  std::size_t done = 0;
  BuildEvents events;
  events.started = [&](std::size_t i) { display.start(i, shown_path(list.files[i].path)); };
  events.finished = [&](std::size_t i, const CompileResult& r) {
    const bool declared = refused_as_declared(list, list.files[i].path, r);
    std::lock_guard<std::mutex> lock(m);
    if (!r.ok && !declared) ++failed;
    const std::vector<std::string> lines = build_result_lines(++done, list.files.size(), shown_path(list.files[i].path), r, declared);
    if (above) {
      display.finish(i, "");
      for (const std::string& l : lines) display.line(l);
    } else {
      for (const std::string& l : lines) std::fprintf(text, "%s\n", l.c_str());  // line-buffered (main.cpp): in a log now
      display.finish(i, "");
    }
  };
  std::vector<CompileResult> results = compile_all(list.files, co, o.jobs, events);
  display.close();
  std::fprintf(text, "%zu built, %d failed\n", list.files.size() - static_cast<std::size_t>(failed), failed);
  return results;
}

// The binary policy screens every file but vendor contenders (compile_all applies it): a refusal
// fails the build unless the file declares `mskb-expect: rejected_static`.
void run_build(const BuildOptions& o) {
  if (!o.all && o.tasks.empty() && o.task_file.empty() && o.kernels.empty())
    throw CLI::ValidationError("nothing to build: give --task, --task-file, --all or --kernel");
  if (o.all && !o.task_file.empty()) throw CLI::ValidationError("--task-file and --all: give one of them");
  const BuildList list = build_list(o);
  CompileOptions co;
  co.arch = o.arch;
  co.allow_libraries = o.allow_libraries;  // shipped and wrong/ kernels are trusted with libraries (compile_all)
  int failed = 0;
  const std::vector<CompileResult> results = build_with_progress(list, co, o, failed);
  if (!o.json.empty()) write_build_json(list, results, o.json);
  if (failed) throw CommandExit(1);
}

}  // namespace

void add_build_command(CLI::App& app) {
  auto o = std::make_shared<BuildOptions>();
  auto* build = app.add_subcommand("build", "Build (and cache) kernels without a GPU: the shipped ones of a task, --all, or --kernel files");
  build->add_option("--task", o->tasks, "Task name(s) (mskb list); comma-separated or repeated")->delimiter(',');
  build->add_option("--task-file", o->task_file, "Your own task from a task file (docs/task-files.md): its reference and baselines")
      ->type_name("FILE")
      ->excludes("--task");
  build->add_flag("--all", o->all, "Every task (--contenders: which of each task's kernels)");
  build->add_option("--contenders", o->contenders,
                    "Which of a task's kernels: baseline, vendor, wrong (its wrong/ kernels), adversarial (its corpus in "
                    "tests/adversarial, docs/adversarial.md), comma-separated, or none")
      ->check(CLI::Validator(
          [](const std::string& v) -> std::string {
            try {
              (void)parse_build_contenders(v);
              return "";
            } catch (const std::invalid_argument& e) {
              return e.what();
            }
          },
          "LIST", "contenders"));
  build->add_option("--kernel", o->kernels, "Kernel file(s)");
  build->add_option("-j,--jobs", o->jobs, "Parallel nvcc builds (default: all cores)")->check(CLI::Range(1, 4096));
  build->add_option("--arch", o->arch,
                    "GPU architecture to compile for: 80, sm_80, compute_80, 90a or sm_90a (default: " + default_arch() + ", the build's)")
      ->transform(gpu_arch_option());
  add_json_option(build, o->json, "Write [{kernel, ok, so, cache_hit, seconds, error, diagnostics, policy, expect}]");
  build->add_flag("--allow-libraries", o->allow_libraries, "Let --kernel files link vendor libraries (// mskb-link:)");
  build->callback([o] { run_build(*o); });
}

}  // namespace mskb::cli
