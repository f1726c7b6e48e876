// Owns running a batch of work units as Slurm jobs from the login node (`mskb run --executor
// slurm`): each attempt of a unit is one `srun --quiet --ntasks=1 --nodes=1 --gres=gpu:1
// --job-name=NAME [user options] COMMAND` (a job of its own, or a step inside an allocation),
// its output in a log file; at most `max_jobs` at once; a unit whose attempt the caller judges
// failed is started again up to `retries` times. SIGINT or SIGTERM to this process cancels every
// job in flight (scancel --name, then SIGTERM to srun, which ends a step inside an allocation)
// and returns; the caller writes what finished. Host-only.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "mskb/harness/launcher.hpp"
#include "mskb/util/process.hpp"

namespace mskb {

struct UnitAttempt {
  std::vector<std::string> command;  // what runs on the node (argv[0] a path the node shares)
  std::string log_path;              // srun's stdout and stderr (the unit's output and srun's messages)
};

struct UnitVerdict {
  bool ok = false;
  std::string reason;  // one line, when !ok
};

struct SlurmUnitsOptions {
  Launcher launcher;        // kind slurm: srun options (validated) and the srun program
  int max_jobs = 8;         // jobs at once
  int retries = 1;          // more attempts of a failed unit
  double poll_s = 0.1;      // how often finished sruns are collected
  double cancel_grace_s = 30;  // after a cancel: how long srun may take to exit before SIGKILL
  std::vector<std::pair<std::string, std::string>> env;  // set in srun's environment (it passes it to the job)
  std::vector<std::string> unset_env;                    // removed from it
};

struct SlurmUnitsCallbacks {
  std::function<UnitAttempt(std::size_t unit, int attempt)> start;  // attempt: 1, 2, ...
  // After srun exited: whether the attempt did the unit's work. `r` is as a local child would
  // give it (as_local_result); `log` the attempt's log file's text.
  std::function<UnitVerdict(std::size_t unit, int attempt, const ProcessResult& r, const std::string& log)> judge;
  std::function<void(const std::string& line)> say;  // progress lines
};

struct SlurmUnitsOutcome {
  std::vector<std::string> failed;  // per unit: "" (done), else why its last attempt failed
  std::vector<int> attempts;        // per unit: attempts started
  int interrupted_by = 0;           // SIGINT or SIGTERM when the batch was cancelled, else 0
  std::size_t cancelled = 0;        // jobs cancelled then
};

// `names[i]`: unit i's job name (unique to this batch: squeue shows it, scancel --name uses it).
SlurmUnitsOutcome run_slurm_units(const std::vector<std::string>& names, const SlurmUnitsOptions& opt, const SlurmUnitsCallbacks& cb);

// Why a Slurm attempt failed, one line: the time limit, a cancellation, srun's own error (an
// allocation that failed), the child's signal, or its exit code and last line of output.
std::string slurm_failure(const ProcessResult& r, const std::string& log);

// scancel next to `srun_path`, else on PATH; "" when there is none.
std::string scancel_program(const std::string& srun_path);

}  // namespace mskb
