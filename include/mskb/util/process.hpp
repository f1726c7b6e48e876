// Owns child processes: spawn with a report pipe on a chosen fd (or on the child's stdout, for a
// launcher such as srun that forwards nothing else) and the rest of its output captured to a log
// file, read the child's JSON lines as they come, enforce a watchdog that the child itself
// re-arms with each line (a "timeout_s" field), and end the whole process group on expiry.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace mskb {

struct ProcessResult {
  int exit_code = -1;     // valid when !signaled
  int signal = 0;         // the terminating signal, if any
  bool signaled = false;
  bool timed_out = false; // killed by the watchdog
  double seconds = 0;
  std::string log_tail;   // last lines of the child's stdout+stderr
};

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0] is the program path
  std::string log_path;           // stdout+stderr of the child go here
  double initial_timeout_s = 60;  // until the first line re-arms the watchdog
  int report_fd = 3;              // the fd number the child writes its lines to
  // The lines come on the child's stdout instead (then only stderr goes to the log): srun
  // forwards a job step's stdout and stderr, no other fd (mskb/launcher.hpp).
  bool report_on_stdout = false;
  // On expiry: SIGTERM to the group and this long to exit before SIGKILL. srun cancels its job
  // step on SIGTERM; a SIGKILLed srun leaves the step running on the cluster. 0: SIGKILL at once.
  double term_grace_s = 0;
  std::vector<std::pair<std::string, std::string>> env;  // extra environment variables
  // Added to the child's nice value (lower CPU priority; 0: as ours). For host work that fills the
  // CPUs around a GPU timing whose launching thread must not wait for a core.
  int nice = 0;
};

// Runs the child to completion (stdin /dev/null: in its own process group it must not read the
// terminal). `on_line` sees each complete line; it returns the new watchdog timeout in seconds
// (<= 0 keeps the current one).
ProcessResult run_process(const SpawnOptions& opt, const std::function<double(const std::string&)>& on_line);

// Runs a command (stdin /dev/null), capturing combined output (for nvcc and other tools).
// Returns the exit code (or 128+signal), -1 if it could not start; ends it after timeout_s
// (SIGTERM and term_grace_s to exit first, as in SpawnOptions, then SIGKILL) and returns 124.
// `nice`: added to the command's nice value, as SpawnOptions::nice. `in_child`: run in the child
// between fork and exec (async-signal-safe work only, e.g. sandbox::LandlockRuleset::restrict_self);
// false makes the child exit 126 without running the command.
int run_command(const std::vector<std::string>& argv, std::string& output, double timeout_s = 600,
                const std::string& cwd = "", double term_grace_s = 0, int nice = 0,
                const std::function<bool()>& in_child = {});

std::string tail_lines(const std::string& text, std::size_t max_lines);

// "SIGSEGV", "SIGABRT", ... for the signals a crashing child dies of; "a signal" otherwise.
const char* signal_name(int signal);

}  // namespace mskb
