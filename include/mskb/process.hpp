// Owns child processes: spawn with a report pipe on a chosen fd and stdout/stderr captured to a
// log file, read the child's JSON lines as they come, enforce a watchdog that the child itself
// re-arms with each line (a "timeout_s" field), and kill the whole process group on expiry.
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
  std::vector<std::pair<std::string, std::string>> env;  // extra environment variables
};

// Runs the child to completion. `on_line` sees each complete line; it returns the new watchdog
// timeout in seconds (<= 0 keeps the current one).
ProcessResult run_process(const SpawnOptions& opt, const std::function<double(const std::string&)>& on_line);

// Runs a command, capturing combined output (for nvcc and other tools). Returns the exit code
// (or 128+signal), -1 if it could not start; kills it after timeout_s.
int run_command(const std::vector<std::string>& argv, std::string& output, double timeout_s = 600,
                const std::string& cwd = "");

std::string tail_lines(const std::string& text, std::size_t max_lines);

}  // namespace mskb
