// Owns `mskb run|check --executor slurm`: the second executor of the suite's units. The plan's
// groups (suite_plan.hpp) become work units, one per (task, precision) group (baseline, vendor and
// the candidates compared with them, timed on one GPU), each unit one Slurm job running this same
// binary on a compute node with the arguments the caller gives it (its report to a JSON file).
// The kernels are built here first into the kernel cache (which must be shared with the nodes),
// the units' reports are merged into the run's report as they finish (merge_reports), a failed
// unit is started again (retries) or reported with its reason, and SIGINT/SIGTERM cancel the jobs
// in flight. slurm_units.hpp runs the jobs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/harness/launcher.hpp"
#include "mskb/harness/suite_plan.hpp"

namespace mskb {

struct SlurmExecutor {
  Launcher launcher;     // kind slurm, validated; work_root: the jobs' reports and logs (shared)
  int max_jobs = 16;     // jobs at once
  int retries = 1;       // more attempts of a failed unit
};

struct SlurmRunHooks {
  // The arguments after the program of the unit that runs `task` at `precision` (fp32, bf16 or
  // all) with `shape_seed`, writing its report to `json`.
  std::function<std::vector<std::string>(const std::string& task, const std::string& precision, std::uint64_t shape_seed,
                                         const std::string& json)>
      unit_arguments;
  std::function<void(const nlohmann::json& report)> on_report;
  // The units' reports merged into one (the report library's merge_reports; required).
  std::function<nlohmann::json(const std::vector<nlohmann::json>& reports)> merge;  // the run's report each time it grows, and at the end
  std::string report_path;  // --json FILE (for messages; "" or "-" when none)
  bool quiet = false;
};

struct SlurmRunResult {
  nlohmann::json report;      // merged; "failed_units" lists the units that did not finish
  std::size_t failed_units = 0;
  int interrupted_by = 0;     // SIGINT or SIGTERM: the jobs were cancelled, the report is partial
};

SlurmRunResult run_suite_on_slurm(const SuitePlan& plan, const SlurmExecutor& executor, const SlurmRunHooks& hooks);

}  // namespace mskb
