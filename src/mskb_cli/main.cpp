// The mskb command line: list | device | run | check | build | merge. Thin: parsing and printing
// only; the work is in mskb::harness (suite.hpp, evaluator.hpp, compiler.hpp).
#include "mskb/cli.hpp"

#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "mskb/util/files.hpp"

namespace mskb {

namespace cli {

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
  CLI::App app{"mskb - MSKernelBench: a multi-scenario CUDA kernel benchmark with a harness that cannot be fooled"};
  app.require_subcommand(1);

  // One line per subcommand, in the order `mskb --help` lists them.
  cli::add_list_command(app);
  cli::add_device_command(app);
  cli::add_run_and_check_commands(app);
  cli::add_build_command(app);
  cli::add_merge_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const cli::CommandExit& e) {
    return e.code();
  } catch (const std::exception& e) {
    std::cerr << "mskb: error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}

}  // namespace mskb
