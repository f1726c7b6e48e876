// The mskb command line: list | device | run | check | build | merge | task | report | compare |
// rerun. Thin: parsing and printing only; the work is in mskb::harness (suite.hpp, evaluator.hpp,
// compiler.hpp, reproduce.hpp).
#include "mskb/cli.hpp"

#include <cstdio>
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "mskb/harness/build_info.hpp"
#include "mskb/util/command_line.hpp"
#include "mskb/util/files.hpp"
#include "mskb/util/progress.hpp"

namespace mskb {

namespace cli {

namespace {
std::vector<std::string> g_invocation;
}  // namespace

const std::vector<std::string>& invocation() { return g_invocation; }

void write_text(const std::string& text, const std::string& path) { write_file_atomic(path, text); }

void write_json(const nlohmann::json& j, const std::string& path) {
  if (path == "-") {
    std::cout << j.dump(2) << "\n";
    return;
  }
  write_text(j.dump(2) + "\n", path);
}

}  // namespace cli

int mskb_main(int argc, char** argv) {
  line_buffer(stdout);  // every line reaches a pipe or a log as it is printed (util/progress.hpp)
  CLI::App app{"mskb - MSKernelBench: a multi-scenario CUDA kernel benchmark with a harness that cannot be fooled", "mskb"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_text("mskb"));
  cli::g_invocation.assign(argv, argv + argc);

  // One line per subcommand, in the order `mskb --help` lists them.
  cli::add_list_command(app);
  cli::add_device_command(app);
  cli::add_run_and_check_commands(app);
  cli::add_build_command(app);
  cli::add_merge_command(app);
  cli::add_task_command(app);
  cli::add_report_command(app);
  cli::add_compare_command(app);
  cli::add_rerun_command(app);
  show_option_defaults(app);

  return run_command_line(app, argc, argv, 2);
}

}  // namespace mskb
