// Owns the subcommand registry of the `cudamaster` CLI: each subcommand is one file in this
// folder exposing add_<name>_command(CLI::App&); cli.cpp calls each one. A command's callback
// is a boundary: it may throw CommandExit (after printing its own message) or any
// std::exception (printed by cudamaster_main as a one-line error, exit code 1).
#pragma once

#include <stdexcept>

namespace CLI {
class App;
}

namespace cudamaster::cli {

// Ends the process with `code`; the command has already told the user why.
class CommandExit : public std::exception {
 public:
  explicit CommandExit(int code) : code_(code) {}
  int code() const noexcept { return code_; }
  const char* what() const noexcept override { return "command exit"; }

 private:
  int code_;
};

void add_llm_check_command(CLI::App& app);
void add_profile_command(CLI::App& app);
void add_optimize_command(CLI::App& app);
void add_runs_command(CLI::App& app);
void add_show_command(CLI::App& app);
void add_report_command(CLI::App& app);

}  // namespace cudamaster::cli
