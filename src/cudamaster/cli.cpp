#include "cudamaster/cli.hpp"

#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands/commands.hpp"
#include "mskb/harness/build_info.hpp"
#include "mskb/util/command_line.hpp"
#include "mskb/util/progress.hpp"

namespace cudamaster {

int cudamaster_main(int argc, char** argv) {
  mskb::line_buffer(stdout);  // every line reaches a pipe or a log as it is printed (util/progress.hpp)
  CLI::App app{"CUDAMaster: multi-agent CUDA kernel optimizer over MSKernelBench", "cudamaster"};
  app.require_subcommand(1);
  app.set_version_flag("--version", mskb::version_text("cudamaster"));

  // One line per subcommand.
  cli::add_llm_check_command(app);
  cli::add_profile_command(app);
  cli::add_optimize_command(app);
  cli::add_runs_command(app);
  cli::add_show_command(app);
  cli::add_report_command(app);
  cli::add_compare_command(app);
  mskb::show_option_defaults(app);

  return mskb::run_command_line(app, argc, argv, 1);
}

}  // namespace cudamaster
