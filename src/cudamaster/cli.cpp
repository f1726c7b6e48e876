#include "cudamaster/cli.hpp"

#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands/commands.hpp"

namespace cudamaster {

int cudamaster_main(int argc, char** argv) {
  CLI::App app{"CUDAMaster: multi-agent CUDA kernel optimizer over MSKernelBench", "cudamaster"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "cudamaster 0.1.0");

  // One line per subcommand.
  cli::add_llm_check_command(app);
  cli::add_profile_command(app);
  cli::add_optimize_command(app);
  cli::add_runs_command(app);
  cli::add_show_command(app);
  cli::add_report_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const cli::CommandExit& e) {
    return e.code();
  } catch (const std::exception& e) {
    fmt::print(stderr, "cudamaster: error: {}\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace cudamaster
