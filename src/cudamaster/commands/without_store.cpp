// The stand-in for a subcommand that needs the run store in a build without SQLite.
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands/commands.hpp"

namespace cudamaster::cli {

void add_command_without_store(CLI::App& app, const std::string& name, const std::string& description, const std::string& remedy) {
  CLI::App* cmd = app.add_subcommand(name, description);
  cmd->allow_extras();
  cmd->callback([name, remedy] {
    fmt::print(stderr, "cudamaster {}: this build has no run store (sqlite3.h was not found); {}\n", name, remedy);
    throw CommandExit(1);
  });
}

}  // namespace cudamaster::cli
