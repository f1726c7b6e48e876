#include "slurm_run.hpp"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include <CLI/CLI.hpp>

#include "mskb/harness/launcher.hpp"
#include "mskb/util/text.hpp"
#include "mskb/report/document.hpp"

namespace fs = std::filesystem;

namespace mskb::cli {

namespace {

std::string default_workdir(const std::string& report_path) {
  if (!report_path.empty() && report_path != "-")
    return (fs::absolute(report_path).parent_path() / ".mskb-slurm").string();
  return (fs::current_path() / ".mskb-slurm").string();
}

Launcher make_launcher(const SlurmRunOptions& o, const std::string& workdir) {
  Launcher l;
  l.kind = "slurm";
  l.srun = o.srun;
  l.work_root = workdir;
  if (!o.partition.empty()) l.args.push_back("--partition=" + o.partition);
  if (!o.gres.empty()) l.args.push_back("--gres=" + o.gres);
  if (!o.time.empty()) l.args.push_back("--time=" + o.time);
  for (const std::string& w : split_words(o.slurm_args)) l.args.push_back(w);
  // Inside an allocation (salloc, sbatch) the units are its job steps: --exact lets several run at
  // once, each on its own GPU.
  if (const char* job = std::getenv("SLURM_JOB_ID"); job && *job) {
    bool exact = false;
    for (const std::string& a : l.args) exact |= a == "--exact" || a == "--overlap";
    if (!exact) l.args.push_back("--exact");
  }
  validate(l);
  return l;
}

}  // namespace

void add_slurm_run_options(CLI::App* cmd, SlurmRunOptions& o) {
  const std::string group = "Slurm (--executor slurm)";
  cmd->add_option("--executor", o.executor,
                  "Where the GPU work runs: local (this machine's GPUs) or slurm (each (task, precision) group a Slurm job "
                  "with one GPU; the kernels are built here)")
      ->check(CLI::IsMember({"local", "slurm"}))
      ->group(group);
  o.slurm_only = {
      cmd->add_option("--partition", o.partition, "slurm: the partition of the jobs")->group(group),
      cmd->add_option("--gres", o.gres, "slurm: the GPU each job takes (default gpu:1; gpu:TYPE:1 for a GPU model)")->group(group),
      cmd->add_option("--time", o.time, "slurm: each job's time limit (srun --time, e.g. 00:30:00)")->group(group),
      cmd->add_option("--slurm-args", o.slurm_args, "slurm: more srun options, e.g. \"--account=X --qos=Y --constraint=h100\"")
          ->group(group),
      cmd->add_option("--max-jobs", o.max_jobs, "slurm: jobs at once (default 16)")->check(CLI::Range(1, 100000))->group(group),
      cmd->add_option("--retries", o.retries, "slurm: more attempts of a job that fails or is cancelled (default 1)")
          ->check(CLI::Range(0, 100))
          ->group(group),
      cmd->add_option("--slurm-workdir", o.workdir,
                      "slurm: folder for the jobs' reports and logs, shared with the compute nodes (default .mskb-slurm next to "
                      "the --json file, or in the current folder)")
          ->group(group),
      cmd->add_option("--slurm-srun", o.srun, "slurm: the srun program (default $MSKB_SRUN, then srun on PATH)")->group(""),
  };
}

void check_slurm_run_options(const SlurmRunOptions& o, bool gpus_given) {
  if (o.slurm()) {
    if (gpus_given) throw std::invalid_argument("--gpus is for a local run: with --executor slurm each job takes its GPU from --gres");
    return;
  }
  for (const CLI::Option* opt : o.slurm_only)
    if (opt->count() > 0) throw std::invalid_argument(opt->get_name() + " needs --executor slurm");
}

SlurmExecutor slurm_executor(const SlurmRunOptions& o, const std::string& report_path) {
  const std::string workdir =
      fs::absolute(o.workdir.empty() ? default_workdir(report_path) : o.workdir).lexically_normal().string();
  SlurmExecutor e;
  e.launcher = make_launcher(o, workdir);
  e.max_jobs = o.max_jobs;
  e.retries = o.retries;
  return e;
}

}  // namespace mskb::cli
