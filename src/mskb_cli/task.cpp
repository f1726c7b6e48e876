// `mskb task new NAME` (a runnable starting task folder: task.toml, ref.cpp, baseline.cu) and
// `mskb task validate FILE` (read a task file and compile its reference or build its reference
// kernel, no GPU), and the
// `--task-file` selection of mskb run / check (docs/task-files.md).
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/core/task_file.hpp"
#include "mskb/harness/reference_kernel.hpp"
#include "mskb/harness/suite.hpp"
#include "mskb/util/command_line.hpp"
#include "mskb/util/files.hpp"
#include "task_templates.hpp"

namespace fs = std::filesystem;

namespace mskb::cli {

std::string use_task_file(const std::string& path, const std::string& precision, SuitePlan& plan) {
  // The rules of `mskb task validate` (one-line errors: file:line: key: ...); a reference that does
  // not compile fails here, before any GPU work, a reference kernel built with the contenders' recipe.
  const TaskFile& tf = prepare_task_file(path, plan.compile);
  if (precision == "all") {
    plan.precisions = tf.precisions;
  } else {
    for (Precision p : plan.precisions)
      if (std::find(tf.precisions.begin(), tf.precisions.end(), p) == tf.precisions.end())
        throw std::invalid_argument(path + ": task " + tf.spec.name + " has no " + to_string(p) + " entry point (precisions)");
  }
  return tf.spec.name;
}

namespace {

struct NewOptions {
  std::string name, dir;
  bool force = false;
};

void new_task(const NewOptions& o) {
  const auto files = new_task_files(o.name);  // throws for a name that is not a C identifier
  const fs::path dir = o.dir.empty() ? fs::path(o.name) : fs::path(o.dir);
  if (!o.force)
    for (const auto& [file, text] : files)
      if (fs::exists(dir / file)) throw std::invalid_argument((dir / file).string() + " exists (--force overwrites it)");
  fs::create_directories(dir);
  for (const auto& [file, text] : files) write_file_atomic((dir / file).string(), text);
  std::cout << fmt::format("wrote {0}/task.toml, {0}/ref.cpp, {0}/baseline.cu\n"
                           "check it:  mskb task validate {0}/task.toml\n"
                           "judge a kernel:  mskb check --task-file {0}/task.toml --kernel my_kernel.cu\n",
                           dir.string());
}

// The same rules as every --task-file (prepare_task_file): a file validate accepts, build, check
// and run accept too, and one it refuses they refuse with the same line.
void validate_task(const std::string& path) {
  const TaskFile& tf = prepare_task_file(path);
  const std::string so = compile_reference(tf);                   // compiled by prepare_task_file: the cached object
  const std::string kernel_so = reference_kernel_library(tf.spec);  // "" without a reference kernel
  const TaskSpec& s = tf.spec;
  std::vector<std::string> precisions, baselines;
  for (Precision p : tf.precisions) {
    precisions.push_back(to_string(p));
    const auto b = tf.baseline.find(p);
    baselines.push_back(std::string(to_string(p)) + " " + (b == tf.baseline.end() ? "none" : fs::path(b->second).filename().string()));
  }
  std::cout << fmt::format("{}: task {} ({}) is valid\n", path, s.name, s.category);
  for (Precision p : tf.precisions) std::cout << "  " << s.signature(p) << "\n";
  std::cout << fmt::format("  shapes: {} paper, {} held-out, {} large; {} seeds\n", s.paper.size(), s.heldout.size(), s.large.size(), s.seeds);
  std::cout << fmt::format("  baseline: {}\n", fmt::join(baselines, ", "));
  if (tf.reference_kernel.empty())
    std::cout << fmt::format("  reference: {} (compiled: {})\n", fs::path(tf.reference_source).filename().string(), so);
  else
    std::cout << fmt::format("  reference: the kernel {}, computing in {} (built: {})\n", fs::path(tf.reference_kernel).filename().string(),
                             tf.reference_precision, kernel_so);
}

}  // namespace

void add_task_command(CLI::App& app) {
  auto* task = app.add_subcommand("task", "Your own tasks as task files (TOML): start one, or validate one without a GPU");
  task->require_subcommand(1);
  auto n = std::make_shared<NewOptions>();
  auto* create = task->add_subcommand("new", "Write a starting task folder NAME/ (task.toml, ref.cpp, baseline.cu) that mskb check passes as is");
  create->add_option("name", n->name, "Task name (a C identifier: the entry point's name)")->required();
  create->add_option("--dir", n->dir, "Folder to write (default: ./NAME)");
  create->add_flag("--force", n->force, "Overwrite existing files");
  create->callback([n] { new_task(*n); });
  auto path = std::make_shared<std::string>();
  auto* validate = task->add_subcommand("validate", "Read a task file (every expression at every shape) and compile its reference; no GPU");
  validate->add_option("file", *path, "The task file (.toml)")->required()->check(existing_file());
  validate->callback([path] { validate_task(*path); });
}

}  // namespace mskb::cli
