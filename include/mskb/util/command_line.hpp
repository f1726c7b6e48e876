// Owns how both command lines (mskb, cudamaster) end: --help and --version print and exit 0; a
// usage error (unknown command or option, a missing or out-of-range value, a missing input file)
// is one line on stderr naming the command ("mskb build: unknown option '--taks' (did you mean
// '--task'?)") and exit 2; no usable CUDA device one line ("mskb: no CUDA device (...)") and exit 1; a
// subcommand's CommandExit its own code; any other error one line and `error_code`. Also the
// options every command shares the meaning of (--json) and the defaults --help shows.
// Header-only (CLI11 is header-only; util links nothing for it).
#pragma once

#include <algorithm>
#include <cctype>
#include <exception>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <regex>
#include <string>
#include <system_error>
#include <vector>

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
// that lists them. `toolkit` (optional): the architectures the toolkit's nvcc compiles for ("75",
// "80", ...; empty: unknown, not checked); one it does not is a usage error naming them, before
// any build (CUDA 13 dropped sm_70 and older).
inline CLI::Validator gpu_arch_option(std::function<std::vector<std::string>()> toolkit = nullptr) {
  return CLI::Validator(
      [toolkit](std::string& v) {
        const std::optional<std::string> n = normalize_gpu_arch(v);
        if (!n) return "'" + v + "' is not a GPU architecture: write it as 90, sm_90, compute_90, 90a or sm_90a";
        if (toolkit) {
          const std::vector<std::string> known = toolkit();
          const std::string base = n->back() == 'a' || n->back() == 'f' ? n->substr(0, n->size() - 1) : *n;
          if (!known.empty() && std::find(known.begin(), known.end(), base) == known.end()) {
            std::string list;
            for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
            return "'" + v + "': this CUDA toolkit's nvcc does not compile for sm_" + base + " (it does for: " + list + ")";
          }
        }
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
// options, empty values (an empty list: "[]" in CLI11 2.3, "{}" in 2.4) and negative numbers (an
// option's "not given") show none.
inline void show_option_defaults(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    for (CLI::Option* opt : sub->get_options([](CLI::Option*) { return true; })) {
      if (opt->get_type_size_max() == 0 || opt->get_required() || opt->get_description().find("(default") != std::string::npos) continue;
      opt->capture_default_str();
      const std::string d = opt->get_default_str();
      if (d == "[]" || d == "{}" || d == "[{}]" || (d.size() > 1 && d[0] == '-' && d[1] >= '0' && d[1] <= '9')) opt->default_str("");
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

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
// neighbours each cost 1 ("--taks" is 1 from "--task").
inline std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1, 0));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

// The one of `names` nearest to `word`: the closest by edit distance when that is at most a third
// of the word's length (at least 2), else the only name the word begins; "" when none is near.
inline std::string nearest_name(const std::string& word, const std::vector<std::string>& names) {
  std::string best;
  std::size_t best_d = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const std::string& n : names) {
    const std::size_t d = edit_distance(word, n);
    if (d < best_d) {
      best_d = d;
      best = n;
    }
  }
  if (!best.empty()) return best;
  for (const std::string& n : names)
    if (word.size() > 2 && n.rfind(word, 0) == 0) {
      if (!best.empty()) return "";  // more than one: no single guess
      best = n;
    }
  return best;
}

// Every name an option of `cmd` answers to: "--task", "-j", "--jobs" (no positionals).
inline std::vector<std::string> option_names(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* o : cmd.get_options([](const CLI::Option*) { return true; })) {
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

// The subcommand the command line reached ("mskb task validate": the `validate` app); `app` itself
// when it names none.
inline const CLI::App* selected_command(const CLI::App& app) {
  const CLI::App* cur = &app;
  for (;;) {
    const std::vector<const CLI::App*> subs = cur->get_subcommands([](const CLI::App* s) { return s->parsed(); });
    if (subs.empty()) return cur;
    cur = subs.back();
  }
}

// "mskb build", "mskb task validate": the words a usage error starts with.
inline std::string command_path(const CLI::App& app) {
  std::string path = app.get_name();
  const CLI::App* cur = &app;
  for (;;) {
    const std::vector<const CLI::App*> subs = cur->get_subcommands([](const CLI::App* s) { return s->parsed(); });
    if (subs.empty()) return path;
    cur = subs.back();
    path += " " + cur->get_name();
  }
}

// The first argument that looks like an option ("--taks", "--taks=x", "-Z") and that neither `cmd`
// nor a command above it has; "" when there is none. Negative numbers are values, not options.
inline std::string unknown_option(const CLI::App& cmd, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") break;
    if (a.size() < 2 || a[0] != '-' || (std::isdigit(static_cast<unsigned char>(a[1])) != 0) || a[1] == '.') continue;
    const std::string name = a[1] == '-' ? a.substr(0, a.find('=')) : a.substr(0, 2);
    bool known = false;
    for (const CLI::App* c = &cmd; c != nullptr && !known; c = c->get_parent()) known = c->get_option_no_throw(name) != nullptr;
    if (!known) return name;
  }
  return "";
}

// A usage error as one line without the tool's name: "unknown command 'bogus' (one of: list, run,
// ...)" when the first argument is not an option and names no subcommand; "unknown option '--taks'
// (did you mean '--task'?)"; otherwise CLI11's message, without the name of the positional it
// concerns (the command already says it: "no such file: nope.json").
inline std::string usage_message(const CLI::App& app, int argc, char** argv, const CLI::ParseError& e) {
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    bool known = false;
    for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; })) {
      names.push_back(s->get_name());
      known = known || s->check_name(argv[1]);
    }
    if (!known) {
      const std::string guess = nearest_name(argv[1], names);
      std::string all;
      for (const std::string& n : names) all += (all.empty() ? "" : ", ") + n;
      return "unknown command '" + std::string(argv[1]) + "' (" + (guess.empty() ? "one of: " + all : "did you mean '" + guess + "'?") + ")";
    }
  }
  const CLI::App* cmd = selected_command(app);
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    const std::string bad = unknown_option(*cmd, argc, argv);
    if (!bad.empty()) {
      std::vector<std::string> names = option_names(*cmd);
      const std::string guess = nearest_name(bad, names);
      return "unknown option '" + bad + "' (" + (guess.empty() ? command_path(app) + " --help lists them" : "did you mean '" + guess + "'?") + ")";
    }
  }
  std::string line = e.what();
  for (char& c : line)
    if (c == '\n') c = ' ';
  for (const CLI::Option* o : cmd->get_options([](const CLI::Option* o) { return o->get_positional(); })) {
    const std::string prefix = o->get_name(true) + ": ";
    if (line.rfind(prefix, 0) == 0) line = line.substr(prefix.size());
  }
  return line;
}

// The check every input file option takes (a usage error, exit 2, before the command does any work):
// "no such file: F", "F is a folder, not a file".
inline CLI::Validator existing_file() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        std::error_code ec;
        const std::filesystem::file_status st = std::filesystem::status(path, ec);
        if (ec || !std::filesystem::exists(st)) return "no such file: " + path;
        if (std::filesystem::is_directory(st)) return path + " is a folder, not a file";
        return "";
      },
      "FILE");
}
// The same for a folder: "no such folder: D", "D is a file, not a folder".
inline CLI::Validator existing_folder() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        std::error_code ec;
        const std::filesystem::file_status st = std::filesystem::status(path, ec);
        if (ec || !std::filesystem::exists(st)) return "no such folder: " + path;
        if (!std::filesystem::is_directory(st)) return path + " is a file, not a folder";
        return "";
      },
      "DIR");
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
    // "mskb build: unknown option '--taks' (did you mean '--task'?)", "mskb run: --budget: must be > 0, got -1 (mskb run --help)"
    const std::string line = usage_message(app, argc, argv, e);
    const bool unknown_command = line.rfind("unknown command", 0) == 0, hinted = line.find("did you mean") != std::string::npos ||
                                                                                    line.find("--help") != std::string::npos;
    const std::string where = unknown_command ? tool : command_path(app);
    std::cerr << where << ": " << line << (hinted ? "" : " (" + where + " --help)") << "\n";
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
