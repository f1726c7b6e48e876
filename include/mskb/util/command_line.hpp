// Owns how both command lines (mskb, cudamaster) end: --help and --version print and exit 0; a
// usage error (unknown command or option, a missing or out-of-range value) is one line on stderr
// and exit 2; no usable CUDA device one line ("mskb: no CUDA device (...)") and exit 1; a
// subcommand's CommandExit its own code; any other error one line and `error_code`. Also the
// options every command shares the meaning of (--json) and the defaults --help shows.
// Header-only (CLI11 is header-only; util links nothing for it).
#pragma once

#include <cctype>
#include <exception>
#include <iostream>
#include <optional>
#include <regex>
#include <string>

#include <CLI/CLI.hpp>

#include "mskb/util/command_exit.hpp"

namespace mskb {

inline constexpr int kUsageExitCode = 2;

// A GPU architecture as a user writes it: "80", "sm_80", "compute_80", "90a", "sm_90a", "SM_90"
// alike -> the harness's form ("80", "90a"); nullopt for anything else.
inline std::optional<std::string> normalize_gpu_arch(std::string a) {
  for (char& c : a) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* prefix : {"sm_", "compute_", "sm", "compute"})
    if (a.rfind(prefix, 0) == 0) {
      a = a.substr(std::string(prefix).size());
      break;
    }
  static const std::regex form(R"([1-9][0-9]{1,2}[af]?)");
  if (!std::regex_match(a, form)) return std::nullopt;
  return a;
}
// The check every --arch option takes: the forms above, anything else a usage error (exit 2)
// that lists them.
inline CLI::Validator gpu_arch_option() {
  return CLI::Validator(
      [](std::string& v) {
        const std::optional<std::string> n = normalize_gpu_arch(v);
        if (!n) return "'" + v + "' is not a GPU architecture: write it as 90, sm_90, compute_90, 90a or sm_90a";
        v = *n;
        return std::string();
      },
      "ARCH");
}
// The machine has no usable CUDA device (or driver): an environment failure, not a usage error.
inline constexpr int kNoDeviceExitCode = 1;

// When `what` says there is no usable CUDA device (no GPU, no or too old a driver), the reason in
// a few words without source locations, e.g. "cudaGetDeviceCount: no CUDA-capable device is
// detected"; otherwise nullopt.
inline std::optional<std::string> no_cuda_device(const std::string& what) {
  bool none = false;
  for (const char* sign : {"no usable CUDA device", "cudaErrorNoDevice", "cudaErrorInsufficientDriver", "no CUDA-capable device",
                           "CUDA driver version is insufficient"})
    none = none || what.find(sign) != std::string::npos;
  if (!none) return std::nullopt;
  // The runner's error check: "<file>:<line>: <call>(<args>) failed: <cudaError...> (<text>)".
  static const std::regex failed_call(R"(([A-Za-z_]\w*)\([^()]*\) failed: cuda\w+ \(([^()]*)\))");
  std::smatch m;
  if (std::regex_search(what, m, failed_call)) return m[1].str() + ": " + m[2].str();
  static const std::regex location(R"([^\s()]*\.(cu|cuh|cpp|cc|hpp|h):[0-9]+:\s*)");
  std::string why = std::regex_replace(what, location, "");
  const std::string wrapper = "no usable CUDA device: this command needs an NVIDIA GPU (";
  if (why.rfind(wrapper, 0) == 0 && why.back() == ')') why = why.substr(wrapper.size(), why.size() - wrapper.size() - 1);
  return why;
}

// The --json option of every command of both tools: `--json FILE` writes the command's JSON to
// FILE; `--json -` or a bare `--json` prints it on stdout (instead of the command's text).
inline CLI::Option* add_json_option(CLI::App* cmd, std::string& path, const std::string& what) {
  CLI::Option* opt = cmd->add_option("--json", path, what + " to FILE (- or no FILE: on stdout)")->expected(0, 1)->type_name("[FILE]");
  cmd->parse_complete_callback([opt, &path] {
    if (opt->count() > 0 && path.empty()) path = "-";
  });
  return opt;
}

// --help shows the default of each option that has one; call once every command is added. An
// option whose help words its default ("(default: all cores)") keeps the words; flags, required
// options, empty values and negative numbers (an option's "not given") show none.
inline void show_option_defaults(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    for (CLI::Option* opt : sub->get_options([](CLI::Option*) { return true; })) {
      if (opt->get_type_size_max() == 0 || opt->get_required() || opt->get_description().find("(default") != std::string::npos) continue;
      opt->capture_default_str();
      const std::string d = opt->get_default_str();
      if (d == "[]" || (d.size() > 1 && d[0] == '-' && d[1] >= '0' && d[1] <= '9')) opt->default_str("");
    }
}

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
    if (const std::optional<std::string> why = no_cuda_device(e.what())) {
      std::cerr << tool << ": no CUDA device (" << *why << ")\n";
      return kNoDeviceExitCode;
    }
    std::cerr << tool << ": error: " << e.what() << "\n";
    return error_code;
  }
  return 0;
}

}  // namespace mskb
