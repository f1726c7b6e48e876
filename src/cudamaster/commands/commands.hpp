// Owns the subcommand registry of the `cudamaster` CLI: each subcommand is one file in this
// folder exposing add_<name>_command(CLI::App&); cli.cpp calls each one. A command's callback
// is a boundary: it may throw CommandExit (after printing its own message) or any
// std::exception (printed by cudamaster_main as a one-line error, exit code 1; one that says there
// is no usable CUDA device as "cudamaster: no CUDA device (...)"). A command's --json is
// mskb::add_json_option's: FILE, or - (or nothing) for stdout; write_json_output writes it.
#pragma once

#include <string>

#include "mskb/util/command_exit.hpp"

namespace CLI {
class App;
}

namespace cudamaster::cli {

// Ends the process with `code`; the command has already told the user why.
using mskb::CommandExit;

// `text` (a JSON document) where --json said: stdout for "-", else the file (atomically).
void write_json_output(const std::string& text, const std::string& path);

void add_llm_check_command(CLI::App& app);
void add_profile_command(CLI::App& app);
void add_optimize_command(CLI::App& app);
void add_runs_command(CLI::App& app);
void add_show_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_compare_command(CLI::App& app);

// In a build without SQLite (no CM_HAVE_AGENT_LOOP): a subcommand `name` that takes any arguments
// and fails with exit code 1, saying the build has no run store, then `remedy`.
void add_command_without_store(CLI::App& app, const std::string& name, const std::string& description,
                               const std::string& remedy);

}  // namespace cudamaster::cli
