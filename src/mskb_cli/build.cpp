// `mskb build`: builds (and caches) kernels without a GPU - the shipped ones of a task (or of a
// `mskb build`: builds (and caches) kernels without a GPU - the shipped ones of a task (or of a
// task file: its reference and baselines; which of them: --contenders, build_plan.hpp), --all, or
// --kernel files - and applies the binary policy to each (compile_all), one line per kernel as it
// ends and a live [done/total] line with an ETA on a terminal; every error and warning is listed
// (path:line:col, relative to the current directory), a kernel that exports no entry point fails
// (missing_entry, read from the built object), and --resource-usage shows ptxas's registers /
// shared memory / spills per kernel.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
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
#include "mskb/harness/entry_points.hpp"
#include "mskb/harness/reference_kernel.hpp"
#include "mskb/harness/suite.hpp"
#include "mskb/util/command_line.hpp"
#include "mskb/util/files.hpp"
#include "mskb/util/progress.hpp"
#include "mskb/util/text.hpp"

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
  std::vector<std::string> nvcc_flags;  // --nvcc-flag, each checked by check_flag when parsed
  bool resource_usage = false;          // builds with -Xptxas=-v and shows its report per function
  std::string contenders = kDefaultBuildContenders;
};

// The build recipe of the options (also the task file's reference kernel's).
CompileOptions compile_options(const BuildOptions& o) {
  CompileOptions co;
  co.arch = o.arch;
  co.flags = o.nvcc_flags;
  if (o.resource_usage && std::find(co.flags.begin(), co.flags.end(), "-Xptxas=-v") == co.flags.end()) co.flags.push_back("-Xptxas=-v");
  co.allow_libraries = o.allow_libraries;  // shipped and wrong/ kernels are trusted with libraries (compile_all)
  return co;
}

// The files of the command line: --all, --task or --task-file (its reference kernel, built like
// a baseline; the file accepted by mskb task validate's rules, or it fails here) narrowed to
// --contenders, and the --kernel files.
BuildList build_list(const BuildOptions& o) {
  std::vector<std::string> names;
  std::vector<KernelFile> extra;
  if (o.all)
    for (const auto& t : all_tasks()) names.push_back(t.name);
  else if (!o.tasks.empty())
    for (const std::string& t : o.tasks) names.push_back(get_task(t).name);
  else if (!o.task_file.empty()) {
    const TaskFile& tf = prepare_task_file(o.task_file, compile_options(o));  // mskb task validate's rules, its one-line errors
    if (!tf.reference_kernel.empty()) extra.push_back({tf.reference_kernel, "reference", true});  // built like a baseline
    names.push_back(tf.spec.name);
  }
  for (const auto& k : o.kernels) extra.push_back({k, "kernel", false});
  return select_build_files(names, parse_build_contenders(o.contenders), extra);
}

// Whether `path` lies in folder `dir` (both made absolute).
bool inside(const std::string& path, const fs::path& dir) {
  std::error_code ec;
  const std::string p = fs::weakly_canonical(fs::absolute(path), ec).string();
  const std::string d = fs::weakly_canonical(fs::absolute(dir), ec).string() + "/";
  return p.rfind(d, 0) == 0;
}

// The entry points a built file must export one of, and whose they are ("task vector_add"); none
// for a file no task claims. A --kernel file: the tasks of --task / --task-file, else any task's;
// a shipped file: the task whose folder (or adversarial corpus folder) holds it.
std::pair<std::vector<EntryPoint>, std::string> expected_entries(const BuildOptions& o, const KernelFile& f) {
  std::vector<const TaskSpec*> tasks;
  const TaskFile* tf = o.task_file.empty() ? nullptr : &register_task_file(o.task_file);  // registered by build_list
  if (f.contender == "kernel") {
    for (const std::string& t : o.tasks) tasks.push_back(&get_task(t));
    if (tf) tasks.push_back(&tf->spec);
  } else if (tf && inside(f.path, tf->spec.folder)) {
    tasks.push_back(&tf->spec);
  } else {
    for (const TaskSpec& t : all_tasks())
      if (inside(f.path, fs::path(source_root()) / t.folder) || inside(f.path, fs::path(source_root()) / "tests" / "adversarial" / t.name)) {
        tasks.push_back(&t);
        break;
      }
    if (tasks.empty()) return {};
  }
  std::vector<EntryPoint> entries;
  std::vector<std::string> names;
  for (const TaskSpec* t : tasks) {
    for (const EntryPoint& e : task_entry_points(*t)) entries.push_back(e);
    names.push_back(t->name);
  }
  if (tasks.empty()) {  // a --kernel file on its own: any task's entry point
    for (const TaskSpec& t : all_tasks())
      for (const EntryPoint& e : task_entry_points(t)) entries.push_back(e);
    return {entries, "any task (mskb list)"};
  }
  return {entries, (names.size() == 1 ? "task " : "tasks ") + join(names, ", ")};
}

// A built kernel that exports none of its entry points fails here, without a GPU (the harness
// would find no function to call: missing_entry).
void check_entry_point(const BuildOptions& o, const KernelFile& f, CompileResult& r) {
  if (!r.ok) return;
  const auto [entries, whose] = expected_entries(o, f);
  if (entries.empty()) return;
  std::vector<std::string> exported;
  try {
    exported = exported_functions(r.so_path);
  } catch (const std::exception& e) {
    r.policy_notes.push_back(std::string("entry points not checked: ") + e.what());
    return;
  }
  const std::string missing = missing_entry(f.path, exported, entries, whose);
  if (missing.empty()) return;
  r.ok = false;
  r.error = missing;
}

void check_entry_points(const BuildOptions& o, const BuildList& list, std::vector<CompileResult>& results) {
  for (std::size_t i = 0; i < list.files.size(); ++i) check_entry_point(o, list.files[i], results[i]);
}

// ptxas's report per function (--resource-usage): kernels, and device functions with a stack frame.
std::vector<std::string> resource_lines(const CompileResult& r) {
  const std::vector<FunctionResources> fns = parse_resource_usage(r.log);
  if (fns.empty()) return {"     resource usage: no device function compiled"};
  std::size_t w = 8;
  for (const auto& f : fns) w = std::max(w, std::min<std::size_t>(f.name.size(), 60));
  std::vector<std::string> lines = {
      fmt::format("     {:<{}}  {:>9}  {:>12}  {:>12}  {:>17}", "function", w, "registers", "shared (B)", "stack (B)", "spill st/ld (B)")};
  for (const auto& f : fns) {
    if (!f.entry && f.stack_bytes == 0 && f.spill_store_bytes == 0 && f.spill_load_bytes == 0) continue;
    const std::string name = f.name.size() > 60 ? f.name.substr(0, 57) + "..." : f.name;
    lines.push_back(fmt::format("     {:<{}}  {:>9}  {:>12}  {:>12}  {:>17}", name, w,
                                f.registers < 0 ? std::string("-") : std::to_string(f.registers),
                                f.entry ? std::to_string(f.shared_bytes) : std::string("-"), f.stack_bytes,
                                fmt::format("{}/{}", f.spill_store_bytes, f.spill_load_bytes)));
  }
  return lines;
}

// The JSON array, written to `path` ("-": stdout).
void write_build_json(const BuildList& list, const std::vector<CompileResult>& results, const std::string& path, const CompileOptions& co,
                      bool resource_usage) {
  json out = json::array();
  for (std::size_t i = 0; i < list.files.size(); ++i) {
    const auto& r = results[i];
    json diags = json::array();
    for (const auto& d : r.diagnostics) diags.push_back(diagnostic_json(d));
    json item = {{"kernel", list.files[i].path}, {"ok", r.ok}, {"so", r.ok ? r.so_path : ""}, {"cache_hit", r.cache_hit},
                 {"seconds", r.seconds}, {"error", r.error}, {"diagnostics", diags}, {"policy", policy_to_json(r)},
                 {"flags", co.flags}, {"key", r.key}};
    if (r.error.rfind("missing_entry:", 0) == 0) item["missing_entry"] = true;
    if (resource_usage) item["resource_usage"] = resource_usage_json(parse_resource_usage(r.log));
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
  events.finished = [&](std::size_t i, const CompileResult& built) {
    CompileResult r = built;
    check_entry_point(o, list.files[i], r);  // the same check runs on the results below
    const bool declared = refused_as_declared(list, list.files[i].path, r);
    std::lock_guard<std::mutex> lock(m);
    if (!r.ok && !declared) ++failed;
    std::vector<std::string> lines = build_result_lines(++done, list.files.size(), shown_path(list.files[i].path), r, declared);
    if (o.resource_usage && r.ok)
      for (const std::string& l : resource_lines(r)) lines.push_back(l);
    if (above) {
      display.finish(i, "");
      for (const std::string& l : lines) display.line(l);
    } else {
      for (const std::string& l : lines) std::fprintf(text, "%s\n", l.c_str());  // line-buffered (main.cpp): in a log now
      display.finish(i, "");
    }
  };
  std::vector<CompileResult> results = compile_all(list.files, co, o.jobs, events);
  check_entry_points(o, list, results);
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
  const CompileOptions co = compile_options(o);
  int failed = 0;
  const std::vector<CompileResult> results = build_with_progress(list, co, o, failed);
  if (!o.json.empty()) write_build_json(list, results, o.json, co, o.resource_usage);
  if (failed) throw CommandExit(1);
}

}  // namespace

CLI::Option* add_nvcc_flag_option(CLI::App* cmd, std::vector<std::string>& flags) {
  const CLI::Validator allowed(
      [](std::string& v) {
        try {
          check_flag(v);
          return std::string();
        } catch (const std::invalid_argument& e) {
          return std::string(e.what());
        }
      },
      "");  // the type name says FLAG
  return cmd
      ->add_option("--nvcc-flag,--flag", flags,
                   "Extra nvcc argument for kernel builds, one per option, e.g. --nvcc-flag=-Xptxas=-v --nvcc-flag=-lineinfo "
                   "(repeatable; allowed forms: docs/harness.md section 1; part of the cache key and the report)")
      ->allow_extra_args(false)
      ->type_name("FLAG")
      ->check(allowed);
}

void add_build_command(CLI::App& app) {
  auto o = std::make_shared<BuildOptions>();
  auto* build = app.add_subcommand("build", "Build (and cache) kernels without a GPU: the shipped ones of a task, --all, or --kernel files");
  build->add_option("--task", o->tasks, "Task name(s) (mskb list); comma-separated or repeated")->delimiter(',');
  build->add_option("--task-file", o->task_file, "Your own task from a task file (docs/task-files.md): its reference and baselines")
      ->check(existing_file())
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
  build->add_option("--kernel", o->kernels, "Kernel file(s)")->check(existing_file());
  build->add_option("-j,--jobs", o->jobs, "Parallel nvcc builds (default: all cores)")->check(CLI::Range(1, 4096));
  build->add_option("--arch", o->arch,
                    "GPU architecture to compile for: 80, sm_80, compute_80, 90a or sm_90a (default: " + default_arch() + ", the build's)")
      ->transform(gpu_arch_option(toolkit_gpu_archs));
  add_json_option(build, o->json,
                  "Write [{kernel, ok, so, cache_hit, seconds, error, diagnostics: [{file, line, column, severity, message}], policy, "
                  "flags, key, expect, missing_entry, resource_usage}]");
  build->add_flag("--allow-libraries", o->allow_libraries, "Let --kernel files link vendor libraries (// mskb-link:)");
  add_nvcc_flag_option(build, o->nvcc_flags);
  build->add_flag("--resource-usage", o->resource_usage,
                  "Show registers, static shared memory, stack frame (local memory) and spill bytes per kernel function "
                  "(builds with -Xptxas=-v; no GPU needed)");
  build->callback([o] { run_build(*o); });
}

}  // namespace mskb::cli
