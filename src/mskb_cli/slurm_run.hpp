// `mskb run|check --executor slurm`: the run cut into work units, one per (task, precision) group
// (baseline, vendor and the candidates compared with them, timed on one GPU), each unit one Slurm
// job running this same binary as `mskb run|check --task T --precision P --json UNIT.json` on a
// compute node. The kernels are built here first into the kernel cache (MSKB_CACHE_DIR, which
// must be shared with the nodes), the units' reports are merged into the run's report as they
// finish (mskb merge's code), a failed unit is started again (--retries) or reported with its
// reason, and SIGINT/SIGTERM cancel the jobs in flight. mskb/harness/slurm_units.hpp runs the jobs.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace CLI {
class App;
class Option;
}  // namespace CLI
namespace mskb {
struct SuitePlan;
}

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

struct SlurmRunHooks {
  // The arguments after the program of the unit that runs `task` at `precision` (fp32, bf16 or
  // all) with `shape_seed`, writing its report to `json`.
  std::function<std::vector<std::string>(const std::string& task, const std::string& precision, std::uint64_t shape_seed,
                                         const std::string& json)>
      unit_arguments;
  std::function<void(const nlohmann::json& report)> on_report;  // the run's report each time it grows, and at the end
  std::string report_path;  // --json FILE (for messages; "" or "-" when none)
  bool quiet = false;
};

struct SlurmRunResult {
  nlohmann::json report;      // merged; "failed_units" lists the units that did not finish
  std::size_t failed_units = 0;
  int interrupted_by = 0;     // SIGINT or SIGTERM: the jobs were cancelled, the report is partial
};

SlurmRunResult run_suite_on_slurm(const SuitePlan& plan, const SlurmRunOptions& o, const SlurmRunHooks& hooks);

}  // namespace mskb::cli
