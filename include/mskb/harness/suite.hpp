// Owns a benchmark run over tasks x precisions x contenders (mskb run / mskb check): builds
// every kernel in a CPU pool while the GPU evaluates, evaluates one contender at a time, scores
// each against the baseline and vendor measured in the same run. Its report's JSON and renderings
// are the report library's (mskb/report/document.hpp and the renderers beside it).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/harness/compiler.hpp"
#include "mskb/harness/evaluator.hpp"
#include "mskb/protocol/vocabulary.hpp"

namespace mskb {

struct KernelFile {
  std::string path;
  std::string contender;  // "baseline", "vendor", "wrong/<stem>", "adversarial/<stem>" or the file's stem (contender_kind)
  bool trusted = false;   // shipped with the task: may link vendor libraries
  // Judged on this precision only when it builds and exports the entry point (a submission's
  // TASK.cu on bf16); otherwise left out of the run (no entry in the report).
  bool optional = false;
};

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

struct ContenderRun {
  ContenderResult result;
  CompileResult build;
  std::string gpu;     // the CUDA_VISIBLE_DEVICES entry of the lane that evaluated it
  std::string expect;  // wrong/ kernels: the declared disposition (the run is right when it matches)
  bool timing_pending = false;  // partial reports of a two-phase run: checks passed, not yet timed
  bool as_expected() const { return expect.empty() ? is_correct(result.disposition) : to_string(result.disposition) == expect; }
};

struct SuiteReport {
  nlohmann::json device;
  std::vector<ContenderRun> runs;
  bool partial = false;             // written while the run goes on ("partial": true in the JSON)
  uint64_t shape_seed = 0;          // the random shapes' seed (`--shape-seed` replays them)
  // A submission's run: the JSON gets "submission" ({"dir", "kernels", "skipped": [{"file",
  // "reason"}]}) and "submission_summary" (mskb/report/numbers.hpp), the table and Markdown both too.
  std::optional<Submission> submission;
  // What is needed to run it again (reproduce_record; null: none): the report's JSON
  // (mskb/report/document.hpp: report_json) writes it as "reproduce", completed with the device
  // and the SM clocks seen (reproduce_observed).
  nlohmann::json reproduce;
};

using Progress = std::function<void(const std::string& line, bool final_line)>;
// Called (serialized) after every finished contender with the report so far, so a run that is
// killed or times out leaves what it measured (mskb run --json/--markdown rewrite their files).
using PartialReport = std::function<void(const SuiteReport& so_far)>;
// What a live progress display needs (mskb run on a terminal, util/progress.hpp), serialized with
// Progress. `phase`: a phase begins with its item count ("" for a one-phase run; "phase 1/2:
// checks" and "phase 2/2: timing" for a two-phase one). When `item` is set, each item's lines go
// to it instead of to Progress, with the item's index: its status while in flight (final_line
// false), its result line (true), or an empty final line when it has nothing to do in the phase
// (in the timing phase, a contender that did not pass its checks).
struct ProgressItems {
  std::function<void(const std::string& phase, std::size_t items)> phase;
  std::function<void(std::size_t item, const std::string& line, bool final_line)> item;
};

SuiteReport run_suite(const SuitePlan& plan, const Progress& progress, const PartialReport& on_partial = {},
                      const ProgressItems& items = {});

// A (task, precision) group run_suite evaluates on one GPU: baseline, vendor and the candidates
// compared with them, with their kernel files.
struct SuiteGroup {
  std::string task;
  Precision precision;
  std::vector<KernelFile> kernels;
};
// The groups run_suite would evaluate for `plan`, in its order: those `plan.skip_done` has whole
// are left out (counted in `skipped`), as are groups without a kernel. `mskb run --executor slurm`
// runs each one as a Slurm job.
std::vector<SuiteGroup> suite_groups(const SuitePlan& plan, std::size_t* skipped = nullptr);

// `--checks-per-gpu auto`: half the CPUs and one check per 12 GB of host memory (a check part
// of the suite's largest shapes holds ~5 GB), shared by the lanes, from 1 to 8 per GPU.
int auto_checks_per_gpu(int cpus, double host_memory_gb, std::size_t lanes);
// `--timing-overlap auto`: 3 when every contender of the run is trusted (shipped with its task: no
// untrusted library keeps a context on the GPU beside another's timing, docs/harness.md section
// 9), else 1.
int auto_timing_overlap(bool all_trusted);

// The lanes of a run: for each requested GPU ordinal (empty = all `device_count`), the value a
// runner's CUDA_VISIBLE_DEVICES must hold, honouring a CUDA_VISIBLE_DEVICES the parent runs under.
std::vector<std::string> gpu_lanes(const std::vector<int>& requested, int device_count, const char* visible_env);

// Builds `files` with `jobs` parallel nvcc processes (0 = all cores), each path once; results in
// the order of `files`. Trusted files may link vendor libraries.
std::vector<CompileResult> compile_all(const std::vector<KernelFile>& files, const CompileOptions& opt, int jobs);

// The compute-sanitizer command that wraps the runner (EvalOptions::wrapper) for `tool`, `path`
// the sanitizer binary: API errors the contender handles itself are not reported, errors exit
// with kSanitizerExitCode, and every process the runner starts is instrumented too
// (--target-processes all: the kernel may run in a child of the runner). `mskb check --memcheck`
// and cudamaster's acceptance gate use the same command.
std::vector<std::string> sanitizer_wrapper(SanitizerTool tool, const std::string& path);
// compute-sanitizer: $MSKB_SANITIZER, PATH, $CUDA_HOME/bin, next to nvcc, /usr/local/cuda/bin;
// empty when there is none.
std::string find_sanitizer();
// The shapes the sanitizer gates check (cudamaster's acceptance and `mskb run --sanitize`): the
// two smallest paper shapes and the smallest held-out shape (by complexity), no large sweep.
inline constexpr const char* kSanitizerShapes = "the two smallest paper shapes and the smallest held-out shape, two seeds each";
TaskSpec sanitizer_subset(const TaskSpec& spec);

// Symbols a built library exports (nm -D --defined-only); empty on failure.
std::vector<std::string> exported_symbols(const std::string& so_path);

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
