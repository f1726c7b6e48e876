// Owns the command-line surface of the executors, shared by `optimize` and `profile`:
// --executor local|slurm, --slurm-args, --slurm-workdir, --slurm-queue-timeout, --slurm-jobs
// (optimize) and the hidden --slurm-srun (tests; $MSKB_SRUN does the same), their checks, and
// the mskb::Launcher they describe.
#pragma once

#include <string>

#include "mskb/harness/launcher.hpp"

namespace CLI {
class App;
}

namespace cudamaster::cli {

struct ExecutorOptions {
  std::string executor = "local";
  std::string slurm_args;            // extra srun options, split on spaces
  std::string slurm_workdir;         // shared with the compute nodes; default: the command's
  double slurm_queue_timeout_s = 3600;
  std::string slurm_srun;            // empty: $MSKB_SRUN, then srun on PATH
  int slurm_jobs = 4;
};

// `with_jobs`: also --slurm-jobs (job steps at once).
void add_executor_options(CLI::App& cmd, ExecutorOptions& o, bool with_jobs);

// Whether --executor or any --slurm-* option was given on the command line.
bool executor_given(const CLI::App& cmd);

// The launcher the options describe, its work folder created (default: `default_work_root`),
// its srun found. Throws std::invalid_argument for usage errors (--slurm-* without --executor
// slurm, srun options cudamaster cannot use) and std::runtime_error when srun or the folder is
// missing. Prints notes on stderr for setups that would not work as hoped (a kernel cache the
// compute nodes cannot see, job steps inside an allocation without --exact).
mskb::Launcher make_launcher(const CLI::App& cmd, const ExecutorOptions& o, const std::string& default_work_root,
                             const std::string& command);

}  // namespace cudamaster::cli
