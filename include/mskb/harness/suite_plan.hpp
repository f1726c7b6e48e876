// The suite's plan: which kernels a run judges. The kernel files of a task (shipped, wrong/, the
// adversarial corpus), a submission folder's kernels, the user kernels' contender names, and the
// (task, precision) groups of a plan, less those a previous report has whole (done groups).
// Pure planning: nothing here builds or runs.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/core/task.hpp"
#include "mskb/harness/compiler.hpp"
#include "mskb/harness/evaluator.hpp"
#include "mskb/protocol/vocabulary.hpp"

namespace mskb {

// A kernel file of a submission (mskb run|check --submission DIR), judged on its task alone.
struct TaskKernel {
  std::string task;
  std::string path;
  // The precision it is for (TASK_bf16.cu, fp32/TASK.cu, bf16/TASK.cu); none for TASK.cu: fp32,
  // and bf16 when it exports that entry point too (unless the submission has a bf16 file of the task).
  std::optional<Precision> precision;
};

struct SkippedFile {
  std::string path;
  std::string reason;
};

// A folder of kernels for many tasks: TASK.cu and TASK_bf16.cu at its top, or fp32/TASK.cu and
// bf16/TASK.cu; other .cu files (no such task, another subfolder) are skipped with the reason.
struct Submission {
  std::string dir;
  std::vector<TaskKernel> kernels;   // sorted by path
  std::vector<SkippedFile> skipped;  // sorted by path
};
// Throws std::invalid_argument (one line) when `dir` is not a folder.
Submission scan_submission(const std::string& dir);

// The contender names of user kernel files, unique within one run: the file's stem, with as many
// parent folders prefixed as it takes to tell files with the same stem apart (a/softmax,
// b/softmax); a name that would read as a shipped contender kind (baseline, vendor, wrong/...)
// gets "candidate/" prefixed. The same file (by path) gets the same name.
std::map<std::string, std::string> user_contender_names(const std::vector<std::string>& paths);

struct SuitePlan {
  std::vector<std::string> tasks;
  std::vector<Precision> precisions = {Precision::fp32, Precision::bf16};
  // Shipped contenders: baseline, vendor, wrong (check only), adversarial.
  std::vector<ContenderKind> contenders = {ContenderKind::baseline, ContenderKind::vendor};
  std::vector<std::string> kernels;   // user kernel files (single task only)
  // mskb run|check --submission: kernels of many tasks, each judged on its own task (those of
  // `tasks` only); a (task, precision) group without one of them is not run.
  std::optional<Submission> submission;
  EvalOptions eval;
  CompileOptions compile;
  // Check under compute-sanitizer with this tool (none: no sanitizer): correctness only, one seed
  // per shape, guard zones off.
  std::optional<SanitizerTool> sanitizer;
  // A previous report (`mskb run --json`): its complete (task, precision) groups are skipped
  // (continue a killed or timed-out run; join the reports with merge_reports).
  nlohmann::json skip_done;
  int build_jobs = 0;                 // 0 = hardware threads
  std::vector<int> gpus;              // GPU ordinals to use; empty = every visible GPU (one lane each)
  // Concurrent correctness checks per GPU; > 1 makes a timed run two-phase. 0: auto_checks_per_gpu
  // on this host (1 where the runners are Slurm job steps).
  int checks_per_gpu = 1;
  // A two-phase run's timing phase: timing parts at once per GPU (1: one at a time). They share
  // the lane's GPU lock (mskb/util/gpu_lock.hpp): GPU work shared, each timing exclusive. 0: auto
  // (auto_timing_overlap). The values a run used are in its report (device and reproduce).
  int timing_overlap = 1;
  // A user kernel that exports only some precisions is judged on those (no explicit --precision).
  bool skip_missing_precisions = false;
  // Random shapes (mskb/random_shapes.hpp): `random_shapes` shapes per task drawn with this seed
  // and checked like held-out shapes; the seed is recorded in the report (`--shape-seed` replays).
  uint64_t shape_seed = 0;  // 0: draw one per run (recorded)
  int random_shapes = 2;
  // A timed run's sanitizer gate (`mskb run --sanitize`): before a contender other than a vendor
  // one is timed, compute-sanitizer memcheck and racecheck check it on sanitizer_subset(); a
  // report makes it sanitizer_error (not timed).
  bool sanitize_gate = false;
  // The command line that made the plan (argv), recorded in the report's "reproduce" record
  // (mskb/harness/reproduce.hpp); empty when the plan was not made by one.
  std::vector<std::string> command_line;
  // "task|precision": run only these groups (empty: every group). `mskb rerun` runs the groups
  // its report recorded.
  std::vector<std::string> only_groups;
};

// Progress lines of a run: (line, final) where a final line is a result and a non-final one the
// item's status in flight.
using Progress = std::function<void(const std::string& line, bool final_line)>;

// A (task, precision) group run_suite evaluates on one GPU: baseline, vendor and the candidates
// compared with them, with their kernel files and (wrong/ and adversarial kernels) the
// disposition each declares ("" for none; `expect` runs parallel to `kernels`).
struct SuiteGroup {
  std::string task;
  Precision precision;
  std::vector<KernelFile> kernels;
  std::vector<std::string> expect;
};
// The groups run_suite would evaluate for `plan`, in its order: those `plan.skip_done` has whole
// are left out (counted in `skipped`), as are groups without a kernel. `mskb run --executor slurm`
// runs each one as a Slurm job.
std::vector<SuiteGroup> suite_groups(const SuitePlan& plan, std::size_t* skipped = nullptr);
// The same groups, an empty one kept (run_suite), with a line to `progress` for each adversarial
// kernel this run does not judge.
std::vector<SuiteGroup> plan_groups(const SuitePlan& plan, const Progress& progress, std::size_t& skipped);

// The shipped kernel files of a task for a precision (baseline, vendor), that exist.
// Kinds other than baseline and vendor in `which` are ignored.
std::vector<KernelFile> shipped_kernels(const TaskSpec& spec, Precision p, const std::vector<ContenderKind>& which);

// `// mskb-expect: <disposition>` and `// mskb-precision: fp32|bf16` headers of wrong/ kernels.
struct WrongKernel {
  std::string path;
  std::string expect;
  std::vector<Precision> precisions;
  std::string gate;  // `// mskb-gate: memcheck|timing`: judged only under --memcheck / only by mskb run
  int klass = 0;     // adversarial corpus: `// mskb-class: N` (1-8, the classes of issue 15)
};
std::vector<WrongKernel> wrong_kernels(const TaskSpec& spec);
// The adversarial corpus of a task: tests/adversarial/<task>/*.cu, same headers as wrong/ kernels
// plus `// mskb-class:` and `// mskb-gate:`. They are judged as user kernels (not trusted).
std::vector<WrongKernel> adversarial_kernels(const TaskSpec& spec);
// The declared kernels (*.cu with the headers above) of one folder, sorted by path.
std::vector<WrongKernel> declared_kernels(const std::string& dir);

}  // namespace mskb
