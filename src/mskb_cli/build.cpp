// `mskb build`: builds (and caches) kernels without a GPU - the shipped ones of a task (or of a
// task file: its reference and baselines), --all, or --kernel files - and applies the binary
// policy to each (compile_all); every error and warning is listed (path:line:col, relative to the
// current directory), a kernel that exports no entry point fails (missing_entry, read from the
// built object), and --resource-usage shows ptxas's registers / shared memory / spills per kernel.
#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

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

// The files to build, sorted and unique by path, and the disposition each wrong/ and adversarial
// kernel declares.
struct BuildList {
  std::vector<KernelFile> files;
  std::map<std::string, std::string> expect;
};

BuildList build_list(const BuildOptions& o) {
  BuildList list;
  std::vector<std::string> names;
  if (o.all)
    for (const auto& t : all_tasks()) names.push_back(t.name);
  else if (!o.tasks.empty())
    for (const std::string& t : o.tasks) names.push_back(get_task(t).name);
  else if (!o.task_file.empty()) {
    const TaskFile& tf = prepare_task_file(o.task_file, compile_options(o));  // mskb task validate's rules, its one-line errors
    if (!tf.reference_kernel.empty()) list.files.push_back({tf.reference_kernel, "reference", true});  // built like a baseline
    names.push_back(tf.spec.name);
  }
  for (const auto& n : names) {
    const TaskSpec& t = get_task(n);
    for (Precision p : {Precision::fp32, Precision::bf16})
      for (auto& k : shipped_kernels(t, p, {ContenderKind::baseline, ContenderKind::vendor})) list.files.push_back(k);
    for (const auto& w : wrong_kernels(t)) {
      list.files.push_back({w.path, "wrong", true});  // ours: may link libraries, as in mskb check
      list.expect[w.path] = w.expect;
    }
    for (const auto& w : adversarial_kernels(t)) {
      list.files.push_back({w.path, "adversarial", false});
      list.expect[w.path] = w.expect;
    }
  }
  for (const auto& k : o.kernels) list.files.push_back({k, "kernel", false});
  auto& files = list.files;
  std::sort(files.begin(), files.end(), [](const KernelFile& a, const KernelFile& b) { return a.path < b.path; });
  files.erase(std::unique(files.begin(), files.end(), [](const KernelFile& a, const KernelFile& b) { return a.path == b.path; }), files.end());
  return list;
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
void check_entry_points(const BuildOptions& o, const BuildList& list, std::vector<CompileResult>& results) {
  for (std::size_t i = 0; i < list.files.size(); ++i) {
    CompileResult& r = results[i];
    if (!r.ok) continue;
    const auto [entries, whose] = expected_entries(o, list.files[i]);
    if (entries.empty()) continue;
    std::vector<std::string> exported;
    try {
      exported = exported_functions(r.so_path);
    } catch (const std::exception& e) {
      r.policy_notes.push_back(std::string("entry points not checked: ") + e.what());
      continue;
    }
    const std::string missing = missing_entry(list.files[i].path, exported, entries, whose);
    if (missing.empty()) continue;
    r.ok = false;
    r.error = missing;
  }
}

// The error line of a failed build is shown unless it is its first compiler error, listed anyway.
bool error_in_diagnostics(const CompileResult& r) {
  if (r.outcome != CompileOutcome::compile_error) return false;
  for (const auto& d : r.diagnostics)
    if (d.severity == "error") return r.error.size() >= d.message.size() && r.error.compare(r.error.size() - d.message.size(), d.message.size(), d.message) == 0;
  return false;
}

// ptxas's report per function (--resource-usage): kernels, and device functions with a stack frame.
void print_resources(const CompileResult& r) {
  const std::vector<FunctionResources> fns = parse_resource_usage(r.log);
  if (fns.empty()) {
    std::cout << "     resource usage: no device function compiled\n";
    return;
  }
  std::size_t w = 8;
  for (const auto& f : fns) w = std::max(w, std::min<std::size_t>(f.name.size(), 60));
  std::cout << fmt::format("     {:<{}}  {:>9}  {:>12}  {:>12}  {:>17}\n", "function", w, "registers", "shared (B)", "stack (B)", "spill st/ld (B)");
  for (const auto& f : fns) {
    if (!f.entry && f.stack_bytes == 0 && f.spill_store_bytes == 0 && f.spill_load_bytes == 0) continue;
    const std::string name = f.name.size() > 60 ? f.name.substr(0, 57) + "..." : f.name;
    std::cout << fmt::format("     {:<{}}  {:>9}  {:>12}  {:>12}  {:>17}\n", name, w, f.registers < 0 ? std::string("-") : std::to_string(f.registers),
                             f.entry ? std::to_string(f.shared_bytes) : std::string("-"), f.stack_bytes,
                             fmt::format("{}/{}", f.spill_store_bytes, f.spill_load_bytes));
  }
}

// A refusal by the binary policy that the file declares (`mskb-expect: rejected_static`), or a
// failed build it declares (`mskb-expect: compile_error`: the corpus's host-file includes, refused
// by the build's confinement).
bool expected_refusal(const BuildList& list, const CompileResult& r, std::size_t i) {
  const auto e = list.expect.find(list.files[i].path);
  if (e == list.expect.end()) return false;
  return (r.refused_policy && e->second == "rejected_static") || (!r.ok && !r.refused_policy && e->second == "compile_error");
}

// The JSON array, written to `path` ("-": stdout); returns the number of failed builds.
int write_build_json(const BuildList& list, const std::vector<CompileResult>& results, const std::string& path, const CompileOptions& co,
                     bool resource_usage) {
  int failed = 0;
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
    failed += r.ok || expected_refusal(list, r, i) ? 0 : 1;
  }
  write_json(out, path);
  return failed;
}

// Prints one line per file (and its error and policy notes) and the count; returns the number of
// failed builds.
int print_table(const BuildList& list, const std::vector<CompileResult>& results, const std::string& arch, bool resource_usage) {
  int failed = 0;
  std::cout << "kernels for " << (arch.empty() ? default_arch() + " (the default of this build; --arch to change)" : arch) << "\n";
  for (std::size_t i = 0; i < list.files.size(); ++i) {
    const auto& r = results[i];
    // Shipped kernels relative to the source tree; a user's file as given.
    std::string rel = fs::relative(list.files[i].path, source_root()).string();
    if (rel.empty() || rel.rfind("..", 0) == 0) rel = list.files[i].path;
    const bool as_declared = expected_refusal(list, r, i);
    if (!r.ok && !as_declared) ++failed;
    std::cout << fmt::format("{} {} ({:.1f} s{}{})\n", r.ok ? "ok  " : as_declared ? "ok  " : r.refused_policy ? "REFUSED" : "FAIL", rel,
                             r.seconds, r.cache_hit ? ", cached" : "", as_declared ? ", refused as declared" : "");
    if (!r.ok && !error_in_diagnostics(r)) std::cout << "     " << r.error << "\n";
    for (const auto& d : r.diagnostics) std::cout << "     " << format_diagnostic(d) << "\n";
    for (const auto& n : r.policy_notes) std::cout << "     note: " << n << "\n";
    if (resource_usage && r.ok) print_resources(r);
  }
  std::cout << fmt::format("{} built, {} failed\n", list.files.size() - static_cast<std::size_t>(failed), failed);
  return failed;
}

// The binary policy screens every file but vendor contenders (compile_all applies it): a refusal
// fails the build unless the file declares `mskb-expect: rejected_static`.
void run_build(const BuildOptions& o) {
  if (!o.all && o.tasks.empty() && o.task_file.empty() && o.kernels.empty())
    throw CLI::ValidationError("nothing to build: give --task, --task-file, --all or --kernel");
  if (o.all && !o.task_file.empty()) throw CLI::ValidationError("--task-file and --all: give one of them");
  const BuildList list = build_list(o);
  const CompileOptions co = compile_options(o);
  std::vector<CompileResult> results = compile_all(list.files, co, o.jobs);
  check_entry_points(o, list, results);
  int failed = 0;
  if (!o.json.empty()) failed = write_build_json(list, results, o.json, co, o.resource_usage);
  if (o.json != "-") failed = print_table(list, results, o.arch, o.resource_usage);
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
  build->add_flag("--all", o->all, "Every task's baselines, vendor contenders, wrong/ kernels and adversarial corpus (tests/adversarial)");
  build->add_option("--kernel", o->kernels, "Kernel file(s)")->check(existing_file());
  build->add_option("-j,--jobs", o->jobs, "Parallel nvcc builds (default: all cores)")->check(CLI::Range(1, 4096));
  build->add_option("--arch", o->arch,
                    "GPU architecture to compile for: 80, sm_80, compute_80, 90a or sm_90a (default: " + default_arch() + ", the build's)")
      ->transform(gpu_arch_option());
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
