// Owns how both command lines (mskb, cudamaster) end: --help and --version print and exit 0; a
// usage error (unknown command or option, a missing or out-of-range value) is one line on stderr
// and exit 2; a subcommand's CommandExit its own code; any other error one line and
// `error_code`. Header-only (CLI11 is header-only; util links nothing for it).
#pragma once

#include <exception>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "mskb/util/command_exit.hpp"

namespace mskb {

inline constexpr int kUsageExitCode = 2;

// Option checks with short messages ("must be > 0, got -1").
inline CLI::Validator number_above(double min, bool inclusive) {
  return CLI::Validator(
      [min, inclusive](std::string& text) -> std::string {
        double v = 0;
        try {
          std::size_t used = 0;
          v = std::stod(text, &used);
          if (used != text.size()) throw std::invalid_argument(text);
        } catch (const std::exception&) {
          return "not a number: " + text;
        }
        if (inclusive ? v >= min : v > min) return "";
        return std::string("must be ") + (inclusive ? ">= " : "> ") + (min == 0 ? std::string("0") : std::to_string(min)) + ", got " + text;
      },
      inclusive ? "NUMBER>=0" : "NUMBER>0");
}
inline CLI::Validator positive() { return number_above(0, false); }
inline CLI::Validator non_negative() { return number_above(0, true); }

// "unknown command 'bogus' (one of: list, run, ...)" when the first argument is not an option and
// names no subcommand; otherwise CLI11's own message, prefixed with the subcommand it concerns.
inline std::string usage_message(const CLI::App& app, int argc, char** argv, const std::string& what) {
  if (argc > 1 && argv[1][0] != '-') {
    std::string names;
    bool known = false;
    for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; })) {
      names += (names.empty() ? "" : ", ") + s->get_name();
      known = known || s->check_name(argv[1]);
    }
    if (!known) return "unknown command '" + std::string(argv[1]) + "' (one of: " + names + ")";
  }
  std::string where;
  for (const CLI::App* s : app.get_subcommands()) where = s->get_name() + ": ";
  std::string line = what;
  for (char& c : line)
    if (c == '\n') c = ' ';
  return where + line;
}

inline int run_command_line(CLI::App& app, int argc, char** argv, int error_code) {
  const std::string tool = app.get_name();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << tool << ": " << usage_message(app, argc, argv, e.what()) << " (" << tool << " --help)\n";
    return kUsageExitCode;
  } catch (const CommandExit& e) {
    return e.code();
  } catch (const std::exception& e) {
    std::cerr << tool << ": error: " << e.what() << "\n";
    return error_code;
  }
  return 0;
}

}  // namespace mskb
