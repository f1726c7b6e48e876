#include "commands/executor_options.hpp"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "mskb/harness/compiler.hpp"

namespace fs = std::filesystem;

namespace cudamaster::cli {

namespace {

const char* const kSlurmOptions[] = {"--slurm-args", "--slurm-workdir", "--slurm-queue-timeout", "--slurm-srun", "--slurm-jobs"};

bool given(const CLI::App& cmd, const char* name) {
  try {
    return cmd.count(name) > 0;
  } catch (const CLI::OptionNotFound&) {
    return false;  // --slurm-jobs exists for optimize only
  }
}

bool under_tmp(const std::string& path) { return mskb::node_local_path(path); }

}  // namespace

void add_executor_options(CLI::App& cmd, ExecutorOptions& o, bool with_jobs) {
  cmd.add_option("--executor", o.executor,
                 "Where GPU work runs: local (this machine's GPUs; default) or slurm (each evaluation and profile a Slurm job "
                 "step with one GPU; the loop stays here)");
  if (with_jobs) cmd.add_option("--slurm-jobs", o.slurm_jobs, "slurm: job steps at once (default 4)");
  cmd.add_option("--slurm-args", o.slurm_args,
                 "slurm: extra srun options, e.g. \"--partition=gpu --account=X --time=00:20:00\" (--exact inside an allocation)");
  cmd.add_option("--slurm-workdir", o.slurm_workdir,
                 "slurm: folder for requests, logs and reports, shared with the compute nodes (default: .cudamaster-slurm next "
                 "to the --db file, or in the current folder)");
  cmd.add_option("--slurm-queue-timeout", o.slurm_queue_timeout_s,
                 "slurm: seconds a job step may wait to start before it is cancelled (default 3600)");
  cmd.add_option("--slurm-srun", o.slurm_srun, "slurm: the srun program (default $MSKB_SRUN, then srun on PATH)")->group("");
}

bool executor_given(const CLI::App& cmd) {
  if (given(cmd, "--executor")) return true;
  for (const char* name : kSlurmOptions)
    if (given(cmd, name)) return true;
  return false;
}

mskb::Launcher make_launcher(const CLI::App& cmd, const ExecutorOptions& o, const std::string& default_work_root,
                             const std::string& command) {
  mskb::Launcher l;
  l.kind = o.executor;
  if (!l.slurm()) {
    if (l.kind != "local") throw std::invalid_argument("--executor must be local or slurm (got '" + l.kind + "')");
    for (const char* name : kSlurmOptions)
      if (given(cmd, name)) throw std::invalid_argument(std::string(name) + " needs --executor slurm");
    return l;
  }
  if (o.slurm_jobs < 1) throw std::invalid_argument("--slurm-jobs must be at least 1");
  l.args = mskb::split_words(o.slurm_args);
  l.work_root = fs::absolute(o.slurm_workdir.empty() ? default_work_root : o.slurm_workdir).lexically_normal().string();
  l.queue_timeout_s = o.slurm_queue_timeout_s;
  l.srun = o.slurm_srun;
  mskb::validate(l);
  (void)mskb::srun_program(l);  // a missing srun fails now, not in every evaluation
  std::error_code ec;
  fs::create_directories(l.work_root, ec);
  if (ec) throw std::runtime_error("cannot create the Slurm work folder " + l.work_root + ": " + ec.message());
  if (under_tmp(l.work_root))
    fmt::print(stderr, "cudamaster {}: note: the Slurm work folder {} is node-local on most clusters; give --slurm-workdir on a "
               "shared filesystem\n", command, l.work_root);
  if (const std::string cache = mskb::default_cache_dir(); under_tmp(cache))
    fmt::print(stderr, "cudamaster {}: note: the kernel cache {} is node-local on most clusters; set MSKB_CACHE_DIR to a shared "
               "folder so the job steps can load the kernels built here\n", command, cache);
  if (const char* job = std::getenv("SLURM_JOB_ID"); job && *job) {
    bool exact = false;
    for (const std::string& a : l.args) exact |= a == "--exact" || a == "--overlap";
    if (!exact)
      fmt::print(stderr, "cudamaster {}: note: inside Slurm job {}: job steps take their GPU from this allocation and run one at "
                 "a time unless --slurm-args has --exact\n", command, job);
  }
  return l;
}

}  // namespace cudamaster::cli
