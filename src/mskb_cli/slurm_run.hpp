// `mskb run|check --executor slurm`: its options (where the jobs go, how many at once, retries)
// and the Slurm executor they make. The executor itself (the units as Slurm jobs, each running
// this same binary as `mskb run|check --task T --precision P --json UNIT.json` on a compute node)
// is mskb/harness/slurm_executor.hpp.
#pragma once

#include <string>
#include <vector>

#include "mskb/harness/slurm_executor.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace mskb::cli {

struct SlurmRunOptions {
  std::string executor = "local";  // local | slurm
  std::string partition, gres, time, slurm_args, workdir, srun;
  int max_jobs = 16;
  int retries = 1;
  std::vector<CLI::Option*> slurm_only;  // options that need --executor slurm
  bool slurm() const { return executor == "slurm"; }
};

void add_slurm_run_options(CLI::App* cmd, SlurmRunOptions& o);

// Throws std::invalid_argument (one line) for an unknown executor or a Slurm option without
// --executor slurm. `gpus_given`: --gpus was given (a local option).
void check_slurm_run_options(const SlurmRunOptions& o, bool gpus_given);

// The Slurm executor of the options (mskb/harness/slurm_executor.hpp): the srun options checked,
// the work folder (--slurm-workdir, else .mskb-slurm next to `report_path`, the --json file, or
// in the current folder).
SlurmExecutor slurm_executor(const SlurmRunOptions& o, const std::string& report_path);

}  // namespace mskb::cli
