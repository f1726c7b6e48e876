// Owns where a GPU child process (mskb-runner, ncu around it) runs: here, or as a Slurm job step
// with one GPU while the caller (run state, store, LLM calls, nvcc builds) stays on the login
// node. The command lines are pure functions (unit-tested); so is reading a failed launch.
//
// A Slurm step is `srun --quiet --ntasks=1 --nodes=1 --gres=gpu:1 --job-name=NAME [user args]
// /bin/sh -c 'exec "$0" "$@" 3>&1 1>&2' RUNNER REQUEST 3`: srun forwards the step's stdout and
// stderr but no other fd, so on the compute node the runner's report fd becomes the step's
// stdout (our report pipe) and its stdout joins stderr (our log). No --unbuffered: it runs the
// task on a pseudo-terminal (srun(1)), and slurmstepd already forwards each complete line at once.
// The watchdog stops srun with SIGTERM (it cancels the step; a SIGKILLed srun leaves it running).
// The request, log and report files live under `work_root` and the kernel cache must be shared
// too: the compute node reads them by the same paths. Host-only.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/util/process.hpp"

namespace mskb {

struct Launcher {
  std::string kind = "local";     // local | slurm
  std::string srun;               // slurm: the srun program; empty: $MSKB_SRUN, then srun on PATH
  std::vector<std::string> args;  // slurm: extra srun options (--partition=gpu --account=X --time=...)
  std::string work_root;          // slurm: request, log and report files go under it (shared with the nodes)
  double queue_timeout_s = 3600;  // slurm: how long a step may wait to start (until the child's first line)
  bool slurm() const { return kind == "slurm"; }
};

// Job names by purpose (squeue shows them).
inline constexpr const char* kEvalJobName = "cudamaster-eval";
inline constexpr const char* kProfileJobName = "cudamaster-profile";
inline constexpr const char* kDeviceJobName = "cudamaster-device";

// "--partition=gpu  --account=X" -> its words (srun options need no quoting).
std::vector<std::string> split_words(const std::string& text);

// Throws std::invalid_argument (one line) for an unknown kind, a slurm launcher without a work
// root, or srun options that would break the one-task, one-GPU step whose stdout is our report
// pipe (--ntasks, --nodes, --gpus, --output, --error, --input, --pty, --label, --unbuffered, ...).
// A `--gres=gpu:TYPE:1` replaces the default `--gres=gpu:1`.
void validate(const Launcher& l);

// `srun ... [user args]` up to the command: the step options, for `srun_path` (the resolved program).
std::vector<std::string> srun_prefix(const Launcher& l, const std::string& srun_path, const std::string& job_name);

struct LaunchCommand {
  std::vector<std::string> argv;
  bool report_on_stdout = false;  // SpawnOptions::report_on_stdout
  double term_grace_s = 0;        // SpawnOptions::term_grace_s
};

// `inner` reports on `report_fd`. Local: `inner` as it is. Slurm: the srun step described above.
LaunchCommand launch_command(const Launcher& l, const std::string& srun_path, const std::vector<std::string>& inner,
                             int report_fd, const std::string& job_name);

// The watchdog's first timeout for a child that normally speaks within `child_s`: a Slurm step
// may first wait in the queue.
double first_line_timeout(const Launcher& l, double child_s);

// The srun program: l.srun, else $MSKB_SRUN, else `srun` on PATH. Throws std::runtime_error
// (one line) when there is none.
std::string srun_program(const Launcher& l);

// A launch that failed before the child wrote a single report line: the one-line reason
// ("srun: error: Unable to allocate resources: ...", the step's "exec: ...: not found", or the
// queue timeout), or "" when the failure is the child's own (local launches: always "").
std::string launch_failure(const Launcher& l, const ProcessResult& r, bool any_line, const std::string& log);

// srun exits with 128+N when its task died of signal N: the result a local child would give.
ProcessResult as_local_result(const Launcher& l, ProcessResult r);

// The last line of a log that is the child's own (srun's task-status lines skipped).
std::string last_child_line(const std::string& log);

// `work_root/<host>-<pid>/<hint>` (slurm) or a temp dir (local), created.
std::string launch_work_dir(const Launcher& l, const std::string& hint);

// Whether `path` is under /tmp, /var/tmp or /dev/shm: node-local on most clusters, so a compute
// node does not see what the login node wrote there (work folders, the kernel cache).
bool node_local_path(const std::string& path);

nlohmann::json to_json(const Launcher& l);
Launcher launcher_from_json(const nlohmann::json& j);
std::string describe(const Launcher& l);  // "local" | "slurm (srun --partition=gpu ...; work dir DIR)"

}  // namespace mskb
