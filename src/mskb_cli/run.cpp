// `mskb run` and `mskb check`: one suite over tasks x precisions x contenders. run checks, then
// times and scores; check judges correctness only (or runs a compute-sanitizer tool). The two
// share most options (RunOptions) and the plan they build (SuitePlan).

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "slurm_run.hpp"
#include "mskb/core/instance.hpp"
#include "mskb/core/matrix_market.hpp"
#include "mskb/core/random_shapes.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/harness/compiler.hpp"
#include "mskb/harness/settings.hpp"
#include "mskb/harness/suite.hpp"
#include "mskb/protocol/vocabulary.hpp"
#include "mskb/report/csv.hpp"
#include "mskb/report/document.hpp"
#include "mskb/report/markdown.hpp"
#include "mskb/report/text.hpp"
#include "mskb/util/text.hpp"
#include "mskb/util/command_line.hpp"
#include "mskb/util/progress.hpp"

namespace fs = std::filesystem;

namespace mskb::cli {

namespace {

using json = nlohmann::json;

struct RunOptions {
  bool check = false;  // mskb check, else mskb run
  // Both.
  std::vector<std::string> tasks;
  std::string category, skip_done_path, task_file, submission;
  std::string precision = "all", contenders = "baseline,vendor", json_path, csv_path, arch;
  std::vector<std::string> kernels, flags;
  std::vector<std::string> shapes;  // --shape: ad-hoc shapes of the one task (sweep "custom")
  bool sweep_given = false;         // --sweep was on the command line
  bool all = false, allow_libraries = false, quiet = false;
  int seeds = 3, jobs = 0;
  std::string checks_per_gpu = "auto";  // N or auto (SuitePlan::checks_per_gpu 0)
  std::uint64_t shape_seed = 0;
  std::vector<int> gpus;
  double timeout = 0;
  // run
  std::string sweep = "paper", md_path, matrix_path;
  double budget = 0.25;
  double warmup = TimingConfig{}.warmup_s;
  double noise = TimingConfig{}.target_noise;
  bool sanitize_gate = false;
  std::string timing_overlap = "auto";  // N or auto (SuitePlan::timing_overlap 0)
  // check
  std::string check_sweep;
  bool memcheck = false, racecheck = false;
  SlurmRunOptions slurm;  // --executor slurm (slurm_run.hpp)
};

// Progress on stderr (util/progress.hpp): on a terminal (or MSKB_PROGRESS=live) a live line, the
// phase's [done/total], the contenders in flight, elapsed and ETA, with the result lines printed
// above it; elsewhere (or MSKB_PROGRESS=plain) the result lines alone. The two phases of a
// two-phase run (checks, then timing) each count their own items and have their own ETA. -q: none.
struct StderrProgress {
  StderrProgress(bool quiet, const std::string& name) : phase_name(name) {
    if (quiet) return;
    display = std::make_shared<ProgressDisplay>(0);
    display->phase("preparing", 0);
  }
  Progress lines() const {
    return [d = display](const std::string& line, bool final_line) {
      if (d && final_line) d->line(line);
    };
  }
  ProgressItems items() const {
    if (!display) return {};
    ProgressItems p;
    p.phase = [d = display, name = phase_name](const std::string& phase, std::size_t n) { d->phase(phase.empty() ? name : phase, n); };
    p.item = [d = display](std::size_t i, const std::string& line, bool final_line) {
      if (final_line && line.empty()) d->drop(i);
      else if (final_line) d->finish(i, line);
      else d->start(i, line.rfind('[', 0) == 0 && line.find("] ") != std::string::npos ? line.substr(line.find("] ") + 2) : line);
    };
    return p;
  }
  void close() const {
    if (display) display->close();
  }
  std::string phase_name;                    // of a one-phase run: run or check
  std::shared_ptr<ProgressDisplay> display;  // null: -q
};

// "auto" or an integer in [lo, hi] (an option whose default is chosen at run time).
CLI::Validator auto_or_range(int lo, int hi) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        if (s == "auto") return "";
        char* end = nullptr;
        const long v = std::strtol(s.c_str(), &end, 10);
        if (s.empty() || *end != '\0' || v < lo || v > hi) return fmt::format("'{}' is not auto or a number in [{}, {}]", s, lo, hi);
        return "";
      },
      "");  // the type name gives the range
}

// 0 for auto (the plan's "resolve at run time"), else the number auto_or_range accepted.
int auto_or_int(const std::string& s) { return s == "auto" ? 0 : std::stoi(s); }

std::vector<Precision> parse_precisions(const std::string& s) {
  if (s == "all") return {Precision::fp32, Precision::bf16};
  return {parse_precision(s)};
}

void add_common_options(CLI::App* c, RunOptions& o) {
  c->add_option("--task", o.tasks, "Task name(s) (mskb list); comma-separated or repeated")->delimiter(',');
  c->add_option("--kernel", o.kernels, "Kernel file(s) exporting the MSKernelBench entry point")->check(existing_file());
  c->add_option("--task-file", o.task_file, "Your own task from a task file (TOML, docs/task-files.md), judged like a built-in one")
      ->check(existing_file());
  c->add_option("--submission", o.submission,
                "A folder of kernels for many tasks, each judged on its task: TASK.cu (fp32, and bf16 if it exports it), "
                "TASK_bf16.cu, or fp32/TASK.cu and bf16/TASK.cu; other .cu files are skipped with the reason. "
                "--task / --category narrow it; the report ends with the submission's summary")
      ->check(existing_folder());
  c->add_option("--precision", o.precision, "fp32 | bf16 | all")->check(CLI::IsMember({"fp32", "bf16", "all"}));
  c->add_option("--seeds", o.seeds, "Correctness seeds per paper/held-out shape (>= 3)")->check(CLI::Range(3, 100));
  c->add_option("--shape-seed", o.shape_seed,
                "Seed of the random shapes checked besides paper + held-out (default: a fresh one per run, recorded in the report)");
  c->add_option("--arch", o.arch, "GPU architecture for kernel builds: 90, sm_90, compute_90, 90a or sm_90a (default: the build's)")
      ->transform(gpu_arch_option(toolkit_gpu_archs));
  add_nvcc_flag_option(c, o.flags);
  c->add_flag("--allow-libraries", o.allow_libraries, "Let user kernels link vendor libraries (// mskb-link:)");
  c->add_option("--timeout", o.timeout, "Per-call watchdog in seconds (default: the task's)")->check(mskb::positive());
  add_json_option(c, o.json_path, "Write the JSON report");
  c->add_option("--csv", o.csv_path,
                o.check ? "Write CSV to FILE (- for stdout): one row per contender (task, precision, contender, disposition, checks, message)"
                        : "Write CSV to FILE (- for stdout): one row per timed shape (times, speedup, vs vendor, SOL)")
      ->type_name("FILE");
  c->add_option("-j,--jobs", o.jobs, "Parallel nvcc builds (default: all cores)")->check(CLI::Range(1, 4096));
  c->add_flag("-q,--quiet", o.quiet, "No progress on stderr");
  c->add_option("--gpus", o.gpus, "GPU ordinals to spread the work over, e.g. 0,1 (default: every visible GPU)")->delimiter(',');
  c->add_flag("--all", o.all, "Every task");
  c->add_option("--category", o.category, "Every task of one category: algebra | llm | sparse | scientific")
      ->check(CLI::IsMember({"algebra", "llm", "sparse", "scientific"}));
  c->add_option("--checks-per-gpu", o.checks_per_gpu,
                "Correctness checks of this many contenders at once per GPU (checking needs no exclusive GPU); "
                "run: then the timing, --timing-overlap contenders per GPU; 1: check and time each in one pass. "
                "Default auto: half the CPUs and one per 12 GB of memory, shared by the GPUs, 1 to 8 per GPU (the report says what it used)")
      ->check(auto_or_range(1, 64))
      ->type_name("1-64|auto");
  c->add_option("--skip-done", o.skip_done_path,
                "A previous --json report (e.g. of a killed run): skip its complete (task, precision) groups; "
                "join the two with mskb merge")
      ->check(existing_file());
  c->add_option("--contenders", o.contenders, "Shipped contenders: baseline,vendor (or none); check also takes wrong (each wrong/ kernel must get its declared disposition); "
                "adversarial: the tests/adversarial/<task> corpus, judged like wrong/ kernels (run too: the timing-gated ones)");
  c->add_option("--shape", o.shapes,
                "An ad-hoc shape of the one task, e.g. N=1048576 or M=512,N=256,K=128 (repeatable: one shape each), checked"
                " against the task's dimensions and constraints; it replaces the sweeps (reported as sweep \"custom\")")
      ->type_name("DIMS");
  add_slurm_run_options(c, o.slurm);
}

// --shape: the task's ad-hoc shapes (usage errors name what is wrong with one).
void apply_custom_shapes(const RunOptions& o, SuitePlan& plan) {
  if (plan.tasks.size() != 1) throw std::invalid_argument("--shape needs a single task (--task T or --task-file F): shapes are a task's");
  if (!o.matrix_path.empty()) throw std::invalid_argument("--shape and --matrix: give one of them");
  if (o.sweep_given) throw std::invalid_argument("--shape replaces the sweeps: drop --sweep");
  const TaskSpec& spec = get_task(plan.tasks.front());
  for (const std::string& text : o.shapes) {
    std::vector<std::string> notes;
    const Shape s = custom_shape(spec, text, &notes);
    for (const std::string& n : notes) std::fprintf(stderr, "mskb %s: warning: %s\n", o.check ? "check" : "run", n.c_str());
    if (std::find(plan.eval.custom_shapes.begin(), plan.eval.custom_shapes.end(), s) != plan.eval.custom_shapes.end())
      throw std::invalid_argument("--shape " + s.str() + " is given twice");
    plan.eval.custom_shapes.push_back(s);
  }
  plan.eval.timed_sweeps = {Sweep::custom};
  plan.eval.checked_sweeps.clear();
}

// --task / --category / --all (exactly one) -> the plan's task names.
std::vector<std::string> selected_tasks(const RunOptions& o) {
  if (static_cast<int>(o.all) + static_cast<int>(!o.tasks.empty()) + static_cast<int>(!o.category.empty()) != 1)
    throw std::invalid_argument(std::string("mskb ") + (o.check ? "check" : "run") +
                                " needs exactly one of --task T[,T...], --category C or --all");
  if (!o.kernels.empty() && o.tasks.size() != 1) throw std::invalid_argument("--kernel needs a single --task");
  std::vector<std::string> tasks;
  if (o.all || !o.category.empty()) {
    for (const auto& t : all_tasks())
      if (o.all || t.category == o.category) tasks.push_back(t.name);
  } else
    for (const auto& t : o.tasks) tasks.push_back(get_task(t).name);
  return tasks;
}

// `mskb check --kernel F` judges F alone; without --kernel it judges the shipped contenders.
std::vector<ContenderKind> selected_contenders(const RunOptions& o) {
  std::vector<ContenderKind> contenders;
  if (o.contenders == "none" || (o.check && (!o.kernels.empty() || !o.submission.empty()))) return contenders;
  for (const std::string& c : split(o.contenders, ',')) {
    if (c == "wrong" && !o.check) throw std::invalid_argument("--contenders wrong is for mskb check (wrong/ kernels are judged, not timed)");
    if (c != "baseline" && c != "vendor" && c != "wrong" && c != "adversarial")
      throw std::invalid_argument("unknown contender '" + c + "' (baseline, vendor, wrong, adversarial or none)");
    contenders.push_back(parse_enum<ContenderKind>(c));
  }
  return contenders;
}

std::vector<Sweep> parse_sweeps(const std::string& list) {
  std::vector<Sweep> sweeps;
  for (const std::string& w : split(list, ',')) {
    if (w != "paper" && w != "large" && w != "heldout" && w != "all")
      throw std::invalid_argument("unknown sweep '" + w + "' (paper, large, heldout, all, or a list such as paper,large)");
    for (Sweep s : sweeps_named(w)) sweeps.push_back(s);
  }
  return sweeps;
}

json read_skip_done(const RunOptions& o) {
  std::ifstream in(o.skip_done_path);
  json done = json::parse(in, nullptr, false);
  if (done.is_discarded() || !done.is_object() || !done.contains("contenders"))
    throw std::invalid_argument("--skip-done: " + o.skip_done_path + " is not an mskb --json report");
  if (!o.json_path.empty() && fs::exists(o.json_path) && fs::equivalent(o.json_path, o.skip_done_path))
    throw std::invalid_argument("--skip-done: write the new report to another file (--json), then mskb merge the two");
  return done;
}

// run --matrix: the sparse task's shape comes from the user's Matrix Market file.
void apply_matrix(const std::string& matrix_path, SuitePlan& plan) {
  if (plan.tasks.size() != 1) throw std::invalid_argument("--matrix needs a single --task");
  const TaskSpec& spec = get_task(plan.tasks.front());
  if (!spec.from_matrix) throw std::invalid_argument(spec.name + " does not take a user matrix (--matrix is for sparse tasks)");
  const SparseMatrix m = read_matrix_market(matrix_path);  // line-numbered errors before any GPU work
  plan.eval.matrix_path = fs::absolute(matrix_path).string();
  plan.eval.matrix_shape = matrix_shape(spec, m);
  std::fprintf(stderr, "%s: %lld x %lld, %lld entries (longest row %lld)\n", matrix_path.c_str(), static_cast<long long>(m.rows),
               static_cast<long long>(m.cols), static_cast<long long>(m.nnz()), static_cast<long long>(m.max_row_nnz()));
}

// --submission DIR: the tasks it has kernels for, in the registry's order, narrowed by --task or
// --category.
std::vector<std::string> submission_tasks(const RunOptions& o, const Submission& sub) {
  if (!o.kernels.empty() || !o.task_file.empty()) throw std::invalid_argument("--submission names the kernels: drop --kernel and --task-file");
  if (!o.tasks.empty() && !o.category.empty()) throw std::invalid_argument("--submission: narrow it with --task or --category, not both");
  std::vector<std::string> wanted;
  for (const auto& t : o.tasks) wanted.push_back(get_task(t).name);
  std::vector<std::string> tasks;
  for (const auto& t : all_tasks()) {
    if (!o.category.empty() && t.category != o.category) continue;
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), t.name) == wanted.end()) continue;
    for (const TaskKernel& k : sub.kernels)
      if (k.task == t.name) {
        tasks.push_back(t.name);
        break;
      }
  }
  if (tasks.empty())
    throw std::invalid_argument("--submission " + o.submission + ": no kernel" + (wanted.empty() && o.category.empty() ? "" : " of the selected tasks") +
                                " (TASK.cu, TASK_bf16.cu, fp32/TASK.cu or bf16/TASK.cu)");
  return tasks;
}

// The options as a suite plan; throws std::invalid_argument with a one-line message.
SuitePlan make_plan(const RunOptions& o) {
  SuitePlan plan;
  plan.eval.settings = Settings::from_environment();  // the MSKB_* variables, read once here
  plan.precisions = parse_precisions(o.precision);
  plan.skip_missing_precisions = o.precision == "all";
  plan.kernels = o.kernels;
  plan.build_jobs = o.jobs;
  plan.compile.arch = o.arch;
  plan.compile.flags = o.flags;
  plan.compile.allow_libraries = o.allow_libraries;
  plan.eval.seeds = o.seeds;
  plan.shape_seed = o.shape_seed;
  if (o.timeout > 0) plan.eval.call_timeout_s = o.timeout;
  if (o.json_path == "-" && o.csv_path == "-") throw std::invalid_argument("--json - and --csv -: only one of them can go to stdout");
  if (!o.submission.empty()) {
    plan.submission = scan_submission(o.submission);
    plan.tasks = submission_tasks(o, *plan.submission);
    plan.skip_missing_precisions = false;  // TASK.cu's bf16 is optional; the other files are for one precision
  } else if (!o.task_file.empty()) {
    if (o.all || !o.tasks.empty() || !o.category.empty()) throw std::invalid_argument("--task-file names the task: drop --task, --category and --all");
    plan.tasks = {use_task_file(o.task_file, o.precision, plan)};
  } else {
    plan.tasks = selected_tasks(o);
  }
  plan.contenders = selected_contenders(o);
  plan.gpus = o.gpus;
  plan.checks_per_gpu = auto_or_int(o.checks_per_gpu);
  plan.command_line = invocation();  // the report's "reproduce" record (mskb rerun)
  plan.timing_overlap = auto_or_int(o.timing_overlap);
  plan.sanitize_gate = o.sanitize_gate;
  if (!o.skip_done_path.empty()) plan.skip_done = read_skip_done(o);
  if (o.check) {
    plan.eval.check_only = true;
    plan.eval.checked_sweeps = parse_sweeps(o.check_sweep);
    if (o.memcheck) plan.sanitizer = SanitizerTool::memcheck;
    if (o.racecheck) plan.sanitizer = SanitizerTool::racecheck;
  } else {
    plan.eval.timed_sweeps = parse_sweeps(o.sweep);
    if (!o.matrix_path.empty()) apply_matrix(o.matrix_path, plan);
    plan.eval.timing.max_time_s = o.budget;
    plan.eval.timing.warmup_s = o.warmup;
    plan.eval.timing.target_noise = o.noise;
  }
  if (!o.shapes.empty()) apply_custom_shapes(o, plan);
  return plan;
}

// A contender of a --json report: got its declared disposition (wrong/ kernels), or a correct one.
bool as_expected(const json& c) {
  const std::string d = c.value("disposition", std::string());
  if (c.contains("expect") && c["expect"].is_string()) return d == c["expect"].get<std::string>();
  const std::optional<Disposition> disp = from_string<Disposition>(d);
  return disp && is_correct(*disp);
}

// mskb check: one PASS / FAIL line per contender evaluation (of a --json report).
void print_check_lines(const json& report, std::ostream& out) {
  for (const json& c : report["contenders"]) {
    const std::string task = c["task"], precision = c["precision"], contender = c["contender"], disposition = c["disposition"];
    // A user kernel by its file name, or by its contender name where that tells it from another file of the same name.
    const fs::path path = c.value("kernel", std::string());
    const std::string message = c.value("message", std::string()), kernel = contender == path.stem().string() ? path.filename().string() : contender;
    const bool ok = as_expected(c);
    if (c.contains("expect") && c["expect"].is_string())
      out << fmt::format("{} {} {} {}: {}{}\n", ok ? "PASS" : "FAIL", task, precision, contender,
                         ok ? "rejected as declared: " + disposition : "declared " + c["expect"].get<std::string>() + ", got " + disposition,
                         message.empty() ? "" : " - " + message);
    else if (ok)
      out << fmt::format("PASS {} {} {}: {}/{} checks (paper + held-out, every element)\n", task, precision, kernel,
                         c.value("checks_passed", 0), c.value("checks_total", 0));
    else
      out << fmt::format("FAIL {} {} {}: {}\n", task, precision, kernel, message);
  }
}

bool is_file(const std::string& path) { return !path.empty() && path != "-"; }

std::string csv_of(const RunOptions& o, const nlohmann::json& report) {
  return o.check ? render_contenders_csv(report) : render_results_csv(report);
}

// The report files the options ask for (--json FILE, --csv FILE, --markdown); "-" is printed at the end.
void write_report_files(const RunOptions& o, const nlohmann::json& j) {
  if (!is_file(o.json_path) && !is_file(o.csv_path) && o.md_path.empty()) return;
  if (is_file(o.json_path)) write_json(j, o.json_path);
  if (is_file(o.csv_path)) write_text(csv_of(o, j), o.csv_path);
  if (!o.md_path.empty()) write_text(render_markdown(j), o.md_path);
}

// No GPU: the user's kernels are built anyway, so a compile error (file:line) is reported before
// the missing GPU: one FAIL line per file that does not build.
void report_build_errors(const SuitePlan& plan) {
  std::vector<KernelFile> files;
  std::vector<std::string> tasks, labels;
  for (const std::string& k : plan.kernels) {
    files.push_back({k, fs::path(k).stem().string(), false});
    tasks.push_back(plan.tasks.front());
    labels.push_back(fs::path(k).filename().string());
  }
  if (plan.submission)
    for (const TaskKernel& k : plan.submission->kernels)
      if (std::find(plan.tasks.begin(), plan.tasks.end(), k.task) != plan.tasks.end()) {
        files.push_back({k.path, fs::path(k.path).stem().string(), false});
        tasks.push_back(k.task);
        labels.push_back(fs::path(k.path).lexically_relative(plan.submission->dir).string());
      }
  const std::vector<CompileResult> built = compile_all(files, plan.compile, plan.build_jobs);
  for (std::size_t i = 0; i < files.size(); ++i)
    if (!built[i].ok) std::cout << fmt::format("FAIL {} {}: {}\n", tasks[i], labels[i], built[i].error);
  std::cout.flush();
}

// The end of a run, whichever executor made the report: the check lines or the table (on stderr
// when JSON or CSV goes to stdout: --json -, --csv -), the report files (`write_files`), the
// report on stdout, and exit 1 when `failures`.
void print_report(const RunOptions& o, const json& report, bool write_files, int failures) {
  std::ostream& text = o.json_path == "-" || o.csv_path == "-" ? std::cerr : std::cout;
  if (o.check) {
    print_check_lines(report, text);
    text << render_submission_summary(report);
  } else {
    text << render_table(report);
  }
  if (write_files) write_report_files(o, report);
  if (o.json_path == "-") write_json(report, "-");
  if (o.csv_path == "-") std::cout << csv_of(o, report);
  if (failures) throw CommandExit(1);
}

// --executor slurm: one unit's command line, the run's options for one group (slurm_run.hpp).
std::vector<std::string> unit_arguments(const RunOptions& o, const std::string& task, const std::string& precision,
                                        std::uint64_t shape_seed, const std::string& json_path) {
  auto abs = [](const std::string& p) { return fs::absolute(p).lexically_normal().string(); };
  std::vector<std::string> a = {o.check ? "check" : "run"};
  if (!o.task_file.empty())
    a.insert(a.end(), {"--task-file", abs(o.task_file)});
  else if (!o.submission.empty())
    a.insert(a.end(), {"--submission", abs(o.submission), "--task", task});
  else
    a.insert(a.end(), {"--task", task});
  a.insert(a.end(), {"--precision", precision, "--shape-seed", std::to_string(shape_seed), "--seeds", std::to_string(o.seeds),
                     "--contenders", o.contenders, "--checks-per-gpu", o.checks_per_gpu, "--json", json_path});
  for (const std::string& k : o.kernels) a.insert(a.end(), {"--kernel", abs(k)});
  if (!o.arch.empty()) a.insert(a.end(), {"--arch", o.arch});
  for (const std::string& s : o.shapes) a.insert(a.end(), {"--shape", s});
  for (const std::string& f : o.flags) a.push_back("--nvcc-flag=" + f);
  if (o.allow_libraries) a.push_back("--allow-libraries");
  if (o.timeout > 0) a.push_back(fmt::format("--timeout={}", o.timeout));
  if (o.jobs > 0) a.push_back("--jobs=" + std::to_string(o.jobs));
  if (o.check) {
    if (!o.check_sweep.empty() && o.shapes.empty()) a.insert(a.end(), {"--sweep", o.check_sweep});
    if (o.memcheck) a.push_back("--memcheck");
    if (o.racecheck) a.push_back("--racecheck");
  } else {
    if (o.shapes.empty()) a.insert(a.end(), {"--sweep", o.sweep});
    a.insert(a.end(), {fmt::format("--budget={}", o.budget), fmt::format("--warmup={}", o.warmup),
                       fmt::format("--noise={}", o.noise)});
    if (!o.matrix_path.empty()) a.insert(a.end(), {"--matrix", abs(o.matrix_path)});
    if (o.sanitize_gate) a.push_back("--sanitize");
    a.push_back("--timing-overlap=" + o.timing_overlap);
  }
  return a;
}

// --executor slurm: the groups as Slurm jobs, their reports merged as they finish; then the
// same output as a local run.
void run_suite_on_slurm_command(const RunOptions& o, const SuitePlan& plan) {
  SlurmRunHooks hooks;
  hooks.unit_arguments = [&o](const std::string& task, const std::string& precision, std::uint64_t seed, const std::string& j) {
    return unit_arguments(o, task, precision, seed, j);
  };
  hooks.on_report = [&o](const json& report) { write_report_files(o, report); };
  hooks.merge = [](const std::vector<json>& reports) { return merge_reports(reports); };
  hooks.report_path = o.json_path;
  hooks.quiet = o.quiet;
  const SlurmRunResult r = run_suite_on_slurm(plan, slurm_executor(o.slurm, o.json_path), hooks);
  if (r.interrupted_by != 0) throw CommandExit(128 + r.interrupted_by);
  int failures = static_cast<int>(r.failed_units);
  for (const json& c : r.report["contenders"])
    if (!as_expected(c)) ++failures;
  print_report(o, r.report, false, failures);  // its files written as it grew (hooks.on_report)
}

void run_suite_command(const RunOptions& o) {
  check_slurm_run_options(o.slurm, !o.gpus.empty());
  const SuitePlan plan = make_plan(o);
  if (plan.submission && !o.quiet)
    for (const SkippedFile& f : plan.submission->skipped) std::fprintf(stderr, "skipping %s: %s\n", f.path.c_str(), f.reason.c_str());
  if (o.slurm.slurm()) return run_suite_on_slurm_command(o, plan);
  // A user kernel that exports only one precision is judged on that precision alone.
  // --json/--csv/--markdown files are rewritten after every contender ("partial": true until the
  // end), so a run that is killed or runs out of time leaves what it measured.
  PartialReport partial;
  if (is_file(o.json_path) || is_file(o.csv_path) || !o.md_path.empty())
    partial = [&o](const SuiteReport& so_far) { write_report_files(o, report_json(so_far)); };
  SuiteReport report;
  const StderrProgress progress(o.quiet, o.check ? "check" : "run");
  try {
    report = run_suite(plan, progress.lines(), partial, progress.items());
  } catch (const std::runtime_error& e) {
    progress.close();
    if ((!plan.kernels.empty() || plan.submission) && no_cuda_device(e.what())) report_build_errors(plan);
    throw;  // the missing GPU: one line, exit 1 (run_command_line)
  }
  progress.close();
  int failures = 0;
  for (const auto& r : report.runs)
    if (!r.as_expected()) ++failures;
  print_report(o, report_json(report), true, failures);
}

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  auto* run = app.add_subcommand("run", "Check, then time baseline, vendor and your kernels in one run, and score them");
  add_common_options(run, *o);
  run->add_option("--sweep", o->sweep, "Sizes to time: paper | large | heldout | all, or a list such as paper,large");
  run->add_option("--budget", o->budget, "Timing budget per shape in seconds")->check(mskb::positive());
  const mskb::TimingConfig defaults;
  run->add_option("--warmup", o->warmup,
                  fmt::format("Untimed calls before each timed shape's samples, in seconds (and at least {} calls; default {}: "
                              "clock ramp, module load, library handles)",
                              defaults.warmup_calls, defaults.warmup_s))
      ->check(CLI::Range(0.0, 10.0));
  run->add_option("--noise", o->noise,
                  fmt::format("Stop sampling a shape once the relative standard error of its mean is below this (after {} samples "
                              "and {} s; the budget caps it either way; default {})",
                              defaults.min_samples, defaults.min_time_s, defaults.target_noise))
      ->check(CLI::Range(0.0001, 0.1));
  run->add_option("--markdown", o->md_path, "Also write a Markdown report to FILE");
  run->add_option("--matrix", o->matrix_path, "Sparse tasks: check and time every contender on this Matrix Market file")
      ->check(existing_file());
  run->add_option("--timing-overlap", o->timing_overlap,
                  "With --checks-per-gpu > 1: timing parts of this many contenders at once per GPU (default auto: 3 when every "
                  "contender is shipped with its task, else 1: one at a time), "
                  "after every check (MSKB_PIPELINE=1: each group's as soon as it is checked); their host work overlaps, each timing holds the GPU alone, "
                  "but the others keep a CUDA context (and their loaded kernels) on it: for trusted kernels such as the "
                  "shipped baselines and vendors")
      ->check(auto_or_range(1, 16))
      ->type_name("1-16|auto");
  run->add_flag("--sanitize", o->sanitize_gate,
                "Before timing a contender (not vendor), run compute-sanitizer memcheck and racecheck on its smallest shapes; "
                "a report makes it sanitizer_error");
  run->callback([o, run] {
    o->sweep_given = run->count("--sweep") > 0;
    run_suite_command(*o);
  });
}

void add_check_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  o->check = true;
  auto* check = app.add_subcommand("check", "Correctness only: every shape (paper + held-out), several seeds, every element");
  add_common_options(check, *o);
  check->add_option("--sweep", o->check_sweep, "Sizes to check besides paper + held-out + random: large | all (the sweeps mskb run times)");
  check->add_flag("--memcheck", o->memcheck, "Run under compute-sanitizer memcheck instead (1 seed per shape, no guard zones)");
  check->add_flag("--racecheck", o->racecheck, "Run under compute-sanitizer racecheck instead (shared-memory hazards; 1 seed per shape)")
      ->excludes("--memcheck");
  check->callback([o, check] {
    o->sweep_given = check->count("--sweep") > 0;
    run_suite_command(*o);
  });
}

}  // namespace

void add_run_and_check_commands(CLI::App& app) {
  add_run_command(app);
  add_check_command(app);
}

}  // namespace mskb::cli
