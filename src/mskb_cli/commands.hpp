// Owns the subcommand registry of the `mskb` CLI: each subcommand is one file in this folder
// exposing add_<name>_command(CLI::App&); main.cpp calls each one in the order `mskb --help`
// lists them. A command's callback is a boundary: it may throw CommandExit (after printing its
// own output) or any std::exception (printed by mskb_main as "mskb: error: ...", exit code 2; one
// that says there is no usable CUDA device as "mskb: no CUDA device (...)", exit code 1).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/util/command_exit.hpp"

namespace CLI {
class App;
class Option;
}
namespace mskb {
struct SuitePlan;
}

namespace mskb::cli {

// Ends the process with `code`; the command has already told the user why.
using mskb::CommandExit;

void add_list_command(CLI::App& app);
void add_device_command(CLI::App& app);
void add_run_and_check_commands(CLI::App& app);  // run.cpp: the two share most options
void add_build_command(CLI::App& app);
// --nvcc-flag FLAG (alias --flag), repeatable, of build, run and check (build.cpp): each value
// checked by the harness's allowlist (check_flag) when parsed, a refused one a usage error naming it.
CLI::Option* add_nvcc_flag_option(CLI::App* cmd, std::vector<std::string>& flags);
void add_merge_command(CLI::App& app);
void add_task_command(CLI::App& app);     // task.cpp: mskb task new / validate
// run/check --task-file (task.cpp): registers the file's task (found by name from then on), compiles
// its reference, narrows plan.precisions to the task's own for "all"; returns the task's name.
std::string use_task_file(const std::string& path, const std::string& precision, SuitePlan& plan);
void add_report_command(CLI::App& app);   // report.cpp: mskb report and mskb compare
void add_compare_command(CLI::App& app);
void add_rerun_command(CLI::App& app);    // rerun.cpp: mskb rerun REPORT.json

// The arguments of this mskb process, the program first (main.cpp records them): the reports'
// "reproduce" record carries them.
const std::vector<std::string>& invocation();

// Atomic: a reader (or a run killed mid-write) sees the old file or the new one, never half.
void write_text(const std::string& text, const std::string& path);
// `path` "-" prints the JSON on stdout.
void write_json(const nlohmann::json& j, const std::string& path);

}  // namespace mskb::cli
