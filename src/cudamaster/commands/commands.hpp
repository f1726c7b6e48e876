// Owns the subcommand registry of the `cudamaster` CLI: each subcommand is one file in this
// folder exposing add_<name>_command(CLI::App&); cli.cpp calls each one. A command's callback
// is a boundary: it may throw CommandExit (after printing its own message) or any
// std::exception (printed by cudamaster_main as a one-line error, exit code 1).
#pragma once

#include <string>

#include "mskb/util/command_exit.hpp"

namespace CLI {
class App;
}

namespace cudamaster::cli {

// Ends the process with `code`; the command has already told the user why.
using mskb::CommandExit;

void add_llm_check_command(CLI::App& app);
void add_profile_command(CLI::App& app);
void add_optimize_command(CLI::App& app);
void add_runs_command(CLI::App& app);
void add_show_command(CLI::App& app);
void add_report_command(CLI::App& app);

// In a build without SQLite (no CM_HAVE_AGENT_LOOP): a subcommand `name` that takes any arguments
// and fails with exit code 1, saying the build has no run store, then `remedy`.
void add_command_without_store(CLI::App& app, const std::string& name, const std::string& description,
                               const std::string& remedy);

}  // namespace cudamaster::cli
