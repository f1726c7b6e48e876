// `mskb build`: builds (and caches) kernels without a GPU - the shipped ones of a task (or of a
// task file: its reference and baselines), --all, or --kernel files - and applies the binary
// policy to each (compile_all).
#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/core/task_file.hpp"
#include "mskb/harness/build_info.hpp"
#include "mskb/harness/compiler.hpp"
#include "mskb/harness/suite.hpp"
#include "mskb/util/command_line.hpp"
#include "mskb/util/files.hpp"

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
};

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
    const TaskFile& tf = register_task_file(o.task_file);  // one-line errors (file:line: key: ...)
    (void)compile_reference(tf);                           // the reference builds too, or the file fails here
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

// A refusal by the binary policy that the file declares (`mskb-expect: rejected_static`), or a
// failed build it declares (`mskb-expect: compile_error`: the corpus's host-file includes, refused
// by the build's confinement).
bool expected_refusal(const BuildList& list, const CompileResult& r, std::size_t i) {
  const auto e = list.expect.find(list.files[i].path);
  if (e == list.expect.end()) return false;
  return (r.refused_policy && e->second == "rejected_static") || (!r.ok && !r.refused_policy && e->second == "compile_error");
}

// The JSON array, written to `path` ("-": stdout); returns the number of failed builds.
int write_build_json(const BuildList& list, const std::vector<CompileResult>& results, const std::string& path) {
  int failed = 0;
  json out = json::array();
  for (std::size_t i = 0; i < list.files.size(); ++i) {
    const auto& r = results[i];
    json diags = json::array();
    for (const auto& d : r.diagnostics) diags.push_back({{"file", d.file}, {"line", d.line}, {"severity", d.severity}, {"message", d.message}});
    json item = {{"kernel", list.files[i].path}, {"ok", r.ok}, {"so", r.ok ? r.so_path : ""}, {"cache_hit", r.cache_hit},
                 {"seconds", r.seconds}, {"error", r.error}, {"diagnostics", diags}, {"policy", policy_to_json(r)}};
    if (const auto e = list.expect.find(list.files[i].path); e != list.expect.end()) item["expect"] = e->second;
    out.push_back(std::move(item));
    failed += r.ok || expected_refusal(list, r, i) ? 0 : 1;
  }
  write_json(out, path);
  return failed;
}

// Prints one line per file (and its error and policy notes) and the count; returns the number of
// failed builds.
int print_table(const BuildList& list, const std::vector<CompileResult>& results, const std::string& arch) {
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
    if (!r.ok) std::cout << "     " << r.error << "\n";
    for (const auto& n : r.policy_notes) std::cout << "     note: " << n << "\n";
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
  CompileOptions co;
  co.arch = o.arch;
  co.allow_libraries = o.allow_libraries;  // shipped and wrong/ kernels are trusted with libraries (compile_all)
  const std::vector<CompileResult> results = compile_all(list.files, co, o.jobs);
  int failed = 0;
  if (!o.json.empty()) failed = write_build_json(list, results, o.json);
  if (o.json != "-") failed = print_table(list, results, o.arch);
  if (failed) throw CommandExit(1);
}

}  // namespace

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
  add_json_option(build, o->json, "Write [{kernel, ok, so, cache_hit, seconds, error, diagnostics, policy, expect}]");
  build->add_flag("--allow-libraries", o->allow_libraries, "Let --kernel files link vendor libraries (// mskb-link:)");
  build->callback([o] { run_build(*o); });
}

}  // namespace mskb::cli
