// The suite's execution (run_suite): plans the items (tasks x precisions x contenders, minus the
// groups a previous report has whole), builds them in the pool, and evaluates them on the GPU
// lanes, in one phase or two (checks, then timing).
#include "mskb/harness/suite.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <tuple>

#include <sys/statvfs.h>
#include <unistd.h>

#include <fmt/format.h>

#include "build_pool.hpp"
#include "mskb/core/random_shapes.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/harness/reproduce.hpp"
#include "mskb/util/parallel.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace mskb {

namespace {

// What a pipelined run's check parts and builds add to their nice value (run_pipelined).
constexpr int kBackgroundNice = 10;

double host_memory_gb() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) / 1e9 : 16.0;
}

struct Item {
  const TaskSpec* spec;
  Precision precision;
  KernelFile kernel;
  std::shared_future<CompileResult> build;
  std::string expect;  // wrong/ kernels: the disposition their header declares
  // Shipped contenders of a group whose user kernels are all optional: run only when one of
  // these items (indices) is judged.
  std::vector<std::size_t> needs_one_of;
};

using Results = std::vector<std::optional<ContenderRun>>;

// The compute-sanitizer binary a plan needs ("" when it needs none); throws when it is missing.
std::string plan_sanitizer(const SuitePlan& plan) {
  const bool gate = plan.sanitize_gate && !plan.sanitizer && !plan.eval.check_only;
  if (!gate && !plan.sanitizer) return "";
  const std::string path = find_sanitizer();
  if (path.empty())
    throw std::runtime_error((gate ? std::string("--sanitize") : "--" + to_string(*plan.sanitizer)) +
                             ": compute-sanitizer not found on PATH, in $CUDA_HOME/bin, next to nvcc or in "
                             "/usr/local/cuda/bin (set MSKB_SANITIZER)");
  return path;
}

// (task, precision) groups a previous report already has whole: every contender this run would
// evaluate is there, finished (not waiting for its timing). They are not run again. In a timed
// run, a correct contender without a single timed shape in that report is not done either
// (reports written before `timing_pending` existed mark such contenders just `passed`).
std::map<std::string, std::set<std::string>> done_groups(const json& previous, bool timed_plan) {
  std::map<std::string, std::set<std::string>> done;
  if (!previous.is_object()) return done;
  std::set<std::string> timed;
  for (const json& r : previous.value("results", json::array()))
    if (r.is_object())
      timed.insert(r.value("task", std::string()) + "|" + r.value("precision", std::string()) + "|" + r.value("contender", std::string()));
  for (const json& c : previous.value("contenders", json::array())) {
    if (!c.is_object() || c.value("timing_pending", false)) continue;
    const std::string group = c.value("task", std::string()) + "|" + c.value("precision", std::string());
    const std::string who = c.value("contender", std::string());
    const std::optional<Disposition> d = from_string<Disposition>(c.value("disposition", std::string()));
    if (timed_plan && d && is_correct(*d) && timed.count(group + "|" + who) == 0) continue;
    done[group].insert(who);
  }
  return done;
}

bool has_precision(const WrongKernel& w, Precision p) { return std::find(w.precisions.begin(), w.precisions.end(), p) != w.precisions.end(); }

std::string declared(const WrongKernel& w) { return w.expect.empty() ? std::string("(no mskb-expect header)") : w.expect; }

// Why an adversarial kernel is not judged in this run ("" when it is): `mskb-gate: memcheck`
// kernels run only under --memcheck (and then only they), `mskb-gate: timing` ones only in a
// timed run (mskb run).
std::string adversarial_skip(const WrongKernel& w, const SuitePlan& plan) {
  const std::string memcheck = to_string(SanitizerTool::memcheck);
  const bool timed_run = !plan.eval.check_only && !plan.sanitizer;
  if (w.gate == memcheck && plan.sanitizer != SanitizerTool::memcheck) return "gate memcheck: judged only by mskb check --memcheck";
  if (w.gate != memcheck && plan.sanitizer) return "judged only without --" + to_string(*plan.sanitizer);
  if (w.gate == to_string(Part::timing) && !timed_run) return "gate timing: judged only by mskb run";
  return "";
}

// The kernels of one (task, precision) with their declared dispositions ("" for none).
std::vector<std::pair<KernelFile, std::string>> group_kernels(const SuitePlan& plan, const TaskSpec& spec, Precision p,
                                                              const std::map<std::string, std::string>& names, const Progress& progress) {
  auto wanted = [&](ContenderKind k) { return std::find(plan.contenders.begin(), plan.contenders.end(), k) != plan.contenders.end(); };
  std::vector<std::pair<KernelFile, std::string>> group;
  for (auto& k : shipped_kernels(spec, p, plan.contenders)) group.push_back({k, ""});
  if (wanted(ContenderKind::wrong))
    for (const auto& w : wrong_kernels(spec))
      if (has_precision(w, p))
        group.push_back({KernelFile{w.path, to_string(ContenderKind::wrong) + "/" + fs::path(w.path).stem().string(), true}, declared(w)});
  // The adversarial corpus (tests/adversarial/<task>): user kernels (the binary policy applies),
  // each judged against its declared disposition.
  if (wanted(ContenderKind::adversarial))
    for (const auto& w : adversarial_kernels(spec)) {
      if (!has_precision(w, p)) continue;
      const std::string contender = to_string(ContenderKind::adversarial) + "/" + fs::path(w.path).stem().string();
      if (const std::string skip = adversarial_skip(w, plan); !skip.empty()) {
        if (progress) progress(fmt::format("{} {} {}: skipped ({})", spec.name, to_string(p), contender, skip), true);
        continue;
      }
      group.push_back({KernelFile{w.path, contender, false}, declared(w)});
    }
  for (const auto& path : plan.kernels) group.push_back({KernelFile{path, names.at(path), false}, ""});
  if (plan.submission)
    for (const TaskKernel& k : plan.submission->kernels) {
      if (k.task != spec.name || (k.precision && *k.precision != p)) continue;
      KernelFile f{k.path, names.at(k.path), false};
      f.optional = !k.precision && p != Precision::fp32;  // TASK.cu: bf16 when it exports it
      group.push_back({f, ""});
    }
  return group;
}

// The contender names of the plan's user kernels (user_contender_names over all of them).
std::map<std::string, std::string> plan_kernel_names(const SuitePlan& plan) {
  std::vector<std::string> paths = plan.kernels;
  if (plan.submission)
    for (const TaskKernel& k : plan.submission->kernels) paths.push_back(k.path);
  return user_contender_names(paths);
}

struct PlannedGroup {
  const TaskSpec* spec;
  Precision precision;
  std::vector<std::pair<KernelFile, std::string>> kernels;  // with their declared dispositions
};

// The plan's (task, precision) groups in run order, less those `skip_done` has whole (counted in
// `skipped`).
std::vector<PlannedGroup> planned_groups(const SuitePlan& plan, const Progress& progress, std::size_t& skipped) {
  const auto done = done_groups(plan.skip_done, !plan.eval.check_only && !plan.sanitizer);
  const auto names = plan_kernel_names(plan);
  std::vector<PlannedGroup> out;
  for (const auto& name : plan.tasks) {
    const TaskSpec& spec = get_task(name);
    for (Precision p : plan.precisions) {
      if (!plan.only_groups.empty() &&
          std::find(plan.only_groups.begin(), plan.only_groups.end(), spec.name + "|" + to_string(p)) == plan.only_groups.end())
        continue;
      auto group = group_kernels(plan, spec, p, names, progress);
      // A submission's group without a kernel of the submission: nothing to compare.
      if (plan.submission && std::none_of(group.begin(), group.end(), [&](const auto& g) { return names.count(g.first.path) > 0; })) continue;
      const auto d = done.find(spec.name + "|" + to_string(p));
      // Done: every contender is in the previous report (an optional one may have been left out).
      if (d != done.end() && !group.empty() && std::all_of(group.begin(), group.end(), [&](const auto& g) {
            return g.first.optional || d->second.count(g.first.contender) > 0;
          })) {
        ++skipped;
        continue;
      }
      out.push_back({&spec, p, std::move(group)});
    }
  }
  return out;
}

// One run of the suite: its items, their results, the lanes they run on.
class SuiteRun {
 public:
  SuiteRun(const SuitePlan& plan, const Progress& progress, const PartialReport& on_partial, const ProgressItems& items)
      : plan_(plan), progress_(progress), on_partial_(on_partial), items_progress_(items), eval_(plan.eval), pool_(plan.compile, plan.build_jobs) {}
  ~SuiteRun() { remove_share_root(); }
  SuiteRun(const SuiteRun&) = delete;
  SuiteRun& operator=(const SuiteRun&) = delete;

  SuiteReport run() {
    prepare();
    plan_items();
    resolve_concurrency();
    pool_.start();
    // Work units: a timed run keeps one (task, precision) on one GPU, so baseline, vendor and the
    // candidates it compares are timed on the same device, one evaluation per GPU at a time. A
    // correctness-only run (check, memcheck) takes items one by one, `checks_per_gpu` per GPU. A
    // timed run with checks_per_gpu > 1 goes in two phases: every contender's checks first,
    // several per GPU at once (checking needs no exclusive GPU), then, grouped as above,
    // `timing_overlap` timing parts per GPU at once of those that passed (the timed shapes
    // re-checked with the timed seed, then timed). Their host work overlaps; on the GPU they
    // exclude each other through the lane's lock: GPU work holds it shared, a timing exclusive,
    // so nothing else of the run touches that GPU while samples are taken.
    results_.assign(items_.size(), std::nullopt);
    if (check_only()) {
      run_phase(units(false), checks_per_gpu_, Part::all, nullptr);
    } else if (!two_phase()) {
      run_phase(units(true), 1, Part::all, nullptr);
    } else if (pipelined_) {
      make_lane_locks();
      run_pipelined();
    } else {
      make_lane_locks();
      run_phase(units(false), checks_per_gpu_, Part::checks, nullptr);
      const Results checked = std::move(results_);
      results_.assign(items_.size(), std::nullopt);
      for (const auto& g : units(true)) plan_share(g, checked);
      run_phase(units(true), timing_overlap(), Part::timing, &checked);
    }
    remove_share_root();
    for (auto& r : results_)
      if (r) report_.runs.push_back(std::move(*r));
    return std::move(report_);
  }

 private:
  // The device, the lanes, the random shapes' seed and the sanitizer.
  void prepare() {
    // Random shapes besides the public ones: drawn per run unless the seed is given (recorded).
    eval_.random_shapes = plan_.eval.matrix_path.empty() ? plan_.random_shapes : 0;
    eval_.shape_seed = plan_.shape_seed != 0 ? plan_.shape_seed : fresh_shape_seed();
    report_.shape_seed = eval_.shape_seed;
    report_.submission = plan_.submission;
    report_.reproduce = reproduce_record(plan_, eval_.shape_seed);
    if (!eval_.check_only && !plan_.sanitizer) {
      report_.device = device_info(false, eval_.runner);
      eval_.ceilings = ceilings_from(report_.device);
    } else {
      report_.device = query_device(RunMode::identify, eval_.runner);
    }
    lanes_ = gpu_lanes(plan_.gpus, report_.device.value("device_count", 1), std::getenv("CUDA_VISIBLE_DEVICES"));
    report_.device["lanes"] = lanes_;
    sanitizer_ = plan_sanitizer(plan_);
  }

  // The checks and timing parts at once per GPU (auto: from this host and the contenders) and
  // whether the phases overlap; recorded in the report. Before the builds start.
  void resolve_concurrency() {
    checks_per_gpu_ = plan_.checks_per_gpu > 0 ? plan_.checks_per_gpu
                      : eval_.launcher.slurm() ? 1
                                               : auto_checks_per_gpu(available_cpus(), host_memory_gb(), lanes_.size());
    const bool all_trusted = std::all_of(items_.begin(), items_.end(), [](const Item& it) { return it.kernel.trusted; });
    timing_overlap_ = eval_.launcher.slurm()       ? 1
                      : plan_.timing_overlap > 0 ? plan_.timing_overlap
                                                 : auto_timing_overlap(all_trusted);
    report_.device["checks_per_gpu"] = checks_per_gpu_;
    if (!check_only()) report_.device["timing_overlap"] = two_phase() ? timing_overlap() : 1;
    if (report_.reproduce.contains("settings")) {
      report_.reproduce["settings"]["checks_per_gpu"] = checks_per_gpu_;
      report_.reproduce["settings"]["timing_overlap"] = timing_overlap_;
    }
    // With MSKB_PIPELINE=1, timing parts several at once (trusted kernels only: docs/harness.md
    // section 9) also start as soon as their group is checked, beside the other groups' checks.
    // Off by default: on the H200 it bought no wall time, the checks waiting for the GPU behind
    // the timings (section 9).
    pipelined_ = two_phase() && timing_overlap() > 1 && eval_.settings.pipeline.value_or(false);
    // Shipped kernels' libraries are loaded before the lock (RunRequest::load_before_lock);
    // MSKB_LOAD_OUTSIDE_LOCK=0 loads them under it, as a user's kernel always is.
    load_outside_lock_ = eval_.settings.load_outside_lock.value_or(true);
    report_.device["load_outside_lock"] = load_outside_lock_;
    if (pipelined_) pool_.lower_priority(kBackgroundNice);  // before pool_.start()
    if (two_phase()) report_.device["pipelined"] = pipelined_;
    // The timing parts of a group share the instances they prepare on the host (docs/harness.md
    // section 9): shipped kernels only, as for the timing overlap (a user's kernel process must
    // never sit beside the files another contender's expected outputs come from), on this host
    // only, and MSKB_SHARE_INSTANCES=0 turns it off.
    const bool share_setting = eval_.settings.share_instances.value_or(true);  // a bad value was refused where the settings were read
    share_instances_ = share_setting && two_phase() && all_trusted && !eval_.launcher.slurm();
    if (two_phase()) report_.device["shared_instances"] = share_instances_;
  }

  // Every (task, precision, kernel) to judge, its build submitted to the pool.
  void plan_items() {
    std::size_t skipped_groups = 0;
    for (auto& g : planned_groups(plan_, progress_, skipped_groups)) {
      std::vector<std::size_t> optional, shipped;
      bool all_optional = true;
      for (auto& [k, expect] : g.kernels) {
        if (k.optional) optional.push_back(items_.size());
        else if (k.trusted) shipped.push_back(items_.size());
        else all_optional = false;
        items_.push_back({g.spec, g.precision, k, pool_.submit(k), expect, {}});
      }
      if (all_optional && !optional.empty())
        for (std::size_t i : shipped) items_[i].needs_one_of = optional;
    }
    if (skipped_groups > 0 && progress_)
      progress_(fmt::format("skipping {} (task, precision) group{} already complete in the previous report", skipped_groups,
                            skipped_groups == 1 ? "" : "s"),
                true);
  }

  bool check_only() const { return eval_.check_only || plan_.sanitizer.has_value(); }
  bool two_phase() const { return !check_only() && checks_per_gpu_ > 1; }
  // Timing parts at once per GPU (resolve_concurrency: one where the runners are not on this host,
  // a Slurm launcher: the lock file is local).
  int timing_overlap() const { return timing_overlap_; }

  // A lane's name as it goes into file names: its lock file, its hold log.
  static std::string file_name_of(const std::string& lane) {
    std::string name;
    for (const char c : lane) name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
    return name;
  }

  // One lock file per lane, in this run's temp dir: every evaluation of a two-phase run on that
  // GPU gets it (EvalOptions::gpu_lock).
  void make_lane_locks() {
    if (eval_.launcher.slurm()) return;
    const std::string dir = launch_work_dir(Launcher{}, "locks");
    for (const std::string& lane : lanes_) lane_locks_[lane] = dir + "/gpu-" + file_name_of(lane) + ".lock";
  }

  std::vector<std::vector<std::size_t>> units(bool grouped) const {
    std::vector<std::vector<std::size_t>> out;
    for (std::size_t i = 0; i < items_.size(); ++i) {
      if (grouped && !out.empty()) {
        const Item& prev = items_[out.back().front()];
        if (prev.spec == items_[i].spec && prev.precision == items_[i].precision) {
          out.back().push_back(i);
          continue;
        }
      }
      out.push_back({i});
    }
    return out;
  }

  void say(const std::string& line, bool final_line) {
    std::lock_guard<std::mutex> lock(progress_mutex_);
    progress_(line, final_line);
  }

  // An item's line: to ProgressItems::item when set (an empty final line: nothing to do), else to
  // Progress. In a pipelined run an item's timing part is a line of its own (index + items).
  void say(const Item& it, Part part, const std::string& line, bool final_line) {
    std::lock_guard<std::mutex> lock(progress_mutex_);
    const std::size_t at = static_cast<std::size_t>(&it - items_.data()) + (pipelined_ && part == Part::timing ? items_.size() : 0);
    if (items_progress_.item) items_progress_.item(at, line, final_line);
    else if (!line.empty()) progress_(line, final_line);
  }

  // The sanitizer gate of a timed run: memcheck and racecheck before the timing. A tool that does
  // not pass leaves its result in `r`; returns the tools that ran clean and their seconds.
  std::pair<std::vector<std::string>, double> sanitize_gate(Item& it, Part part, const EvalOptions& e, const std::string& so,
                                                            const std::string& label, ContenderResult& r) {
    std::vector<std::string> sanitized;
    double gate_s = 0;
    for (const SanitizerTool tool : {SanitizerTool::memcheck, SanitizerTool::racecheck}) {
      say(it, part, label + ": " + to_string(tool) + " on " + kSanitizerShapes, false);
      EvalOptions g = e;
      g.part = Part::all;
      g.check_only = true;
      g.random_shapes = 0;
      g.wrapper = sanitizer_wrapper(tool, sanitizer_);
      g.call_timeout_scale *= 20;
      const ContenderResult sr = evaluate(sanitizer_subset(*it.spec), it.precision, it.kernel.contender, it.kernel.path, so, g);
      gate_s += sr.seconds;
      if (sr.disposition != Disposition::passed) {
        r = sr;
        r.seconds = 0;  // counted in gate_s
        r.message = to_string(tool) + " on " + kSanitizerShapes + ": " + sr.message;
        break;
      }
      sanitized.push_back(to_string(tool));
    }
    return {sanitized, gate_s};
  }

  // A built item's evaluation (with the sanitizer gate when the plan asks for it).
  void evaluate_built(Item& it, const std::string& lane, Part part, const std::string& so, const std::string& label, ContenderResult& r) {
    say(it, part, label + ": evaluating", false);
    EvalOptions e = eval_;
    e.part = part;
    if (lanes_.size() > 1 || !plan_.gpus.empty()) e.env.push_back({"CUDA_VISIBLE_DEVICES", lane});
    if (const auto l = lane_locks_.find(lane); l != lane_locks_.end()) e.gpu_lock = l->second;
    if (lanes_.size() > 1) e.gpu_lock_log_suffix = "gpu" + file_name_of(lane);  // MSKB_GPU_LOCK_LOG: one file per lane
    // Shipped kernels' libraries loaded before the lock (RunRequest::load_before_lock).
    e.load_before_lock = it.kernel.trusted && load_outside_lock_;
    // A pipelined run's check parts run at a lower CPU priority, beside the timing parts.
    const bool background = pipelined_ && part == Part::checks;
    e.host_threads = background ? checks_host_threads_ : host_threads_;
    if (part == Part::timing) std::tie(e.instance_share_dir, e.instance_share_consumers) = share_of(it);
    if (background) e.nice = kBackgroundNice;
    if (plan_.sanitizer) {
      e.check_only = true;
      e.seeds = 2;  // the least (the second in the first's buffers): the sanitizer checks accesses, values were checked with every seed without it
      e.wrapper = sanitizer_wrapper(*plan_.sanitizer, sanitizer_);
      e.call_timeout_scale *= 20;  // instrumented kernels run far slower
    }
    // Vendor contenders are trusted library code: no gate.
    const bool gate = plan_.sanitize_gate && !plan_.sanitizer && !eval_.check_only && part != Part::checks &&
                      contender_kind(it.kernel.contender) != ContenderKind::vendor;
    std::vector<std::string> sanitized;
    double gate_s = 0;
    if (gate) std::tie(sanitized, gate_s) = sanitize_gate(it, part, e, so, label, r);
    if (!gate || r.disposition == Disposition::not_run) {
      r = evaluate(*it.spec, it.precision, it.kernel.contender, it.kernel.path, so, e);
      r.sanitized = sanitized;
    }
    if (gate) {
      r.seconds += gate_s;
      r.phase_seconds["sanitizer"] += gate_s;
      r.sanitized = sanitized;
    }
  }

  // An optional item is judged when it builds and exports its precision's entry point (or its
  // symbols cannot be read: the evaluation tells).
  bool judged_optional(Item& it) {
    const CompileResult& b = it.build.get();
    if (!b.ok) return false;
    const auto syms = exported_symbols(b.so_path);
    return syms.empty() || std::find(syms.begin(), syms.end(), it.spec->symbol(it.precision)) != syms.end();
  }

  // One item, one part. `prior` is this item's checks part, when the run is two-phase: a
  // contender that failed it is not timed, one that passed adds its counts.
  std::optional<ContenderRun> run_item(Item& it, const std::string& lane, Part part, const std::optional<ContenderRun>* prior) {
    // However the timing part ends, its group's shared instances lose a consumer.
    struct ShareDone {
      SuiteRun& run;
      const Item& item;
      bool timing;
      ~ShareDone() {
        if (timing) run.share_part_done(item);
      }
    } share_done{*this, it, part == Part::timing};
    // Skipped or failed its checks (a declared kernel that failed as declared too): not timed.
    if (prior && !(*prior && is_correct((*prior)->result.disposition))) {
      say(it, part, "", true);
      return *prior;
    }
    const std::string sym = it.spec->symbol(it.precision);
    // An optional kernel that does not build or lacks the entry point is not judged here, nor
    // the shipped contenders of a group where no kernel is.
    if (it.kernel.optional && !judged_optional(it)) {
      say(it, part, fmt::format("{} {} {}: skipped (no {} in it)", it.spec->name, to_string(it.precision), it.kernel.contender, sym), true);
      return std::nullopt;
    }
    if (!it.needs_one_of.empty() &&
        std::none_of(it.needs_one_of.begin(), it.needs_one_of.end(), [&](std::size_t j) { return judged_optional(items_[j]); })) {
      say(it, part, fmt::format("{} {} {}: skipped (no kernel of the group exports {})", it.spec->name, to_string(it.precision), it.kernel.contender, sym),
          true);
      return std::nullopt;
    }
    const std::size_t idx = ++started_[static_cast<int>(part)];
    const std::string label = fmt::format("[{:>3}/{}] {} {} {}{}{}", idx, items_.size(), it.spec->name, to_string(it.precision),
                                          it.kernel.contender, lanes_.size() > 1 ? " (gpu " + lane + ")" : "",
                                          part == Part::all ? "" : " " + to_string(part));
    say(it, part, label + ": building", false);
    ContenderRun run;
    run.build = it.build.get();
    run.gpu = lane;
    run.expect = it.expect;
    ContenderResult& r = run.result;
    r.task = it.spec->name;
    r.precision = to_string(it.precision);
    r.contender = it.kernel.contender;
    r.kernel = it.kernel.path;
    double part_s = 0;  // this part's own evaluation (the result also sums its checks part's)
    if (!run.build.ok) {
      const std::string& err = run.build.error;
      const bool missing = err.rfind("kernel file not found", 0) == 0;
      const bool refused = run.build.refused_policy || err.find("not allowed") != std::string::npos ||
                           err.find("whitelist") != std::string::npos || err.find("unknown library") != std::string::npos;
      r.disposition = missing ? Disposition::harness_error : refused ? Disposition::rejected_static : Disposition::compile_error;
      r.message = err;
    } else {
      const auto syms = exported_symbols(run.build.so_path);
      auto exports = [&](const std::string& s) { return std::find(syms.begin(), syms.end(), s) != syms.end(); };
      if (!syms.empty() && !exports(sym) && !it.kernel.trusted && plan_.skip_missing_precisions &&
          (exports(it.spec->symbol(Precision::fp32)) || exports(it.spec->symbol(Precision::bf16)))) {
        say(it, part, label + ": skipped (exports no " + sym + ")", true);
        return std::nullopt;
      }
      if (!syms.empty() && !exports(sym)) {
        r.disposition = Disposition::missing_entry;
        r.message = "missing_entry: " + fs::path(it.kernel.path).filename().string() + " does not export " + it.spec->signature(it.precision);
      } else {
        evaluate_built(it, lane, part, run.build.so_path, label, r);
        part_s = r.seconds;
        if (prior) {
          r.checks_passed += (*prior)->result.checks_passed;
          r.checks_total += (*prior)->result.checks_total;
          r.seconds += (*prior)->result.seconds;
          r.timing_part_seconds = r.phase_seconds;
          for (const auto& [k, v] : (*prior)->result.phase_seconds) r.phase_seconds[k] += v;
          merge_slowest_generate(r, (*prior)->result);
        }
      }
    }
    const std::string d = to_string(r.disposition);
    // The line's seconds are this part's evaluation; then its build, where it was made for it (a
    // timing part's kernel was built for its checks part), fresh or from the cache.
    const std::string build_note = part == Part::timing ? ""
                                   : run.build.cache_hit ? ", cached build"
                                                         : fmt::format(", build {:.1f} s", run.build.seconds);
    say(it, part, fmt::format("{}: {}{}{}{} ({:.1f} s{})", label, d,
                    r.sanitized.empty() ? "" : " (" + r.sanitized.front() + (r.sanitized.size() > 1 ? " + " + r.sanitized.back() : "") + " clean)",
                    it.expect.empty() ? "" : (d == it.expect ? " (as declared)" : " (DECLARED " + it.expect + ")"),
                    r.message.empty() ? "" : " - " + r.message, part_s, build_note),
        true);
    return run;
  }

  // The report so far (every finished item; in the timing phase, the checked ones not yet timed).
  void report_partial(const Results* prior) {
    SuiteReport so_far;
    so_far.device = report_.device;
    so_far.shape_seed = report_.shape_seed;
    so_far.submission = report_.submission;
    so_far.reproduce = report_.reproduce;
    so_far.partial = true;
    for (std::size_t k = 0; k < items_.size(); ++k) {
      if (results_[k]) {
        so_far.runs.push_back(*results_[k]);
      } else if (prior && (*prior)[k]) {  // checked, not yet timed
        so_far.runs.push_back(*(*prior)[k]);
        so_far.runs.back().timing_pending = is_correct(so_far.runs.back().result.disposition);
      }
    }
    on_partial_(so_far);
  }

  // The verifiers' host threads: all CPUs but two, shared out among `pools_per_lane` thread pools
  // on every lane at once.
  int cpu_share(int pools_per_lane) const {
    return std::max(1, (available_cpus() - 2) / (pools_per_lane * static_cast<int>(std::max<std::size_t>(1, lanes_.size()))));
  }
  void share_cpus(int pools_per_lane) { host_threads_ = cpu_share(pools_per_lane); }

  // A two-phase run whose checks and timing parts overlap (pipelined_): `checks_per_gpu` check
  // workers and `timing_overlap` timing workers per lane at once. A (task, precision) group's
  // timing parts become ready when its last check part ends; a lane's timing workers take the
  // first ready group whole (it is timed on that GPU), the next when they have nothing left of it.
  // The lane's lock keeps every timing alone on the GPU as in the phased run. The timing parts are
  // the critical path (their checks and samples take turns on the GPU), so they keep the CPU
  // share of a phased timing phase (a timing part's two pools count twice), while the check
  // parts and the builds run at nice +kBackgroundNice with a phased checks phase's share: they
  // take the CPU time the timing parts leave, and a timed process's launching thread gets a core
  // when it wants one (on the H200 at 476945e, equal priorities and 1 thread per verifier slowed
  // the launch-bound timings made beside the checks by 3.4%).
  void run_pipelined() {
    const auto check_units = units(false), groups = units(true);
    std::vector<std::size_t> group_of(items_.size()), unchecked(groups.size());
    for (std::size_t g = 0; g < groups.size(); ++g) {
      unchecked[g] = groups[g].size();
      for (std::size_t i : groups[g]) group_of[i] = g;
    }
    std::deque<std::size_t> to_check;
    for (const auto& u : check_units) to_check.insert(to_check.end(), u.begin(), u.end());
    Results checked(items_.size());
    std::vector<bool> taken(groups.size(), false);
    std::size_t untaken = groups.size();
    // The first group not taken whose checks have all ended (groups.size(): none); under m.
    const auto next_ready = [&] {
      std::size_t g = 0;
      while (g < groups.size() && (taken[g] || unchecked[g] != 0)) ++g;
      return g;
    };
    std::vector<std::deque<std::size_t>> queued(lanes_.size());  // items of the group each lane took
    std::mutex m;
    std::condition_variable ready;
    if (items_progress_.phase) items_progress_.phase("checks and timing", 2 * items_.size());
    share_cpus(2 * timing_overlap());
    checks_host_threads_ = cpu_share(checks_per_gpu_);
    auto check_worker = [&](std::size_t w) {
      const std::string& lane = lanes_[w % lanes_.size()];
      while (true) {
        std::size_t i = 0;
        {
          std::lock_guard<std::mutex> lock(m);
          if (to_check.empty()) return;
          i = to_check.front();
          to_check.pop_front();
        }
        std::optional<ContenderRun> r = run_item(items_[i], lane, Part::checks, nullptr);
        {
          std::lock_guard<std::mutex> partial(partial_mutex_);
          checked[i] = std::move(r);
          if (on_partial_) report_partial(&checked);
        }
        std::lock_guard<std::mutex> lock(m);  // a timing worker reads checked[i] once it sees this
        if (--unchecked[group_of[i]] == 0) ready.notify_all();
      }
    };
    auto timing_worker = [&](std::size_t w) {
      const std::size_t lane_no = w % lanes_.size();
      const std::string& lane = lanes_[lane_no];
      while (true) {
        std::size_t i = 0;
        {
          std::unique_lock<std::mutex> lock(m);
          ready.wait(lock, [&] { return !queued[lane_no].empty() || untaken == 0 || next_ready() < groups.size(); });
          if (queued[lane_no].empty()) {
            if (untaken == 0) return;  // every group taken: this lane has nothing left
            const std::size_t g = next_ready();
            taken[g] = true;
            --untaken;
            plan_share(groups[g], checked);
            queued[lane_no].assign(groups[g].begin(), groups[g].end());
            ready.notify_all();  // the lane's other timing workers may start on it too
          }
          i = queued[lane_no].front();
          queued[lane_no].pop_front();
        }
        std::optional<ContenderRun> r = run_item(items_[i], lane, Part::timing, &checked[i]);
        std::lock_guard<std::mutex> partial(partial_mutex_);
        results_[i] = std::move(r);
        if (on_partial_) report_partial(&checked);
      }
    };
    std::vector<std::thread> threads;
    for (std::size_t w = 0; w < lanes_.size() * static_cast<std::size_t>(checks_per_gpu_); ++w) threads.emplace_back(check_worker, w);
    for (std::size_t w = 0; w < lanes_.size() * static_cast<std::size_t>(timing_overlap()); ++w) threads.emplace_back(timing_worker, w);
    for (auto& t : threads) t.join();
  }

  // A group's timing parts share the instances they prepare (RunRequest::instance_share_dir):
  // one folder per group with two or more contenders to time (those that passed their checks),
  // made under the run's share root, removed when the group's last timing part has ended. The
  // root is on /dev/shm where that has room (the entries are memory either way, and there they
  // never reach a disk), else in the run's temp folder; it goes at the end of the run.
  void plan_share(const std::vector<std::size_t>& group, const Results& checked) {
    if (!share_instances_) return;
    const auto timed_item = [&](std::size_t i) { return checked[i] && is_correct(checked[i]->result.disposition); };
    const int timed = static_cast<int>(std::count_if(group.begin(), group.end(), timed_item));
    if (timed < 2) return;
    std::lock_guard<std::mutex> lock(share_mutex_);
    if (share_root_.empty()) share_root_ = make_share_root();
    if (share_root_.empty()) return;
    const std::string dir = share_root_ + "/" + std::to_string(shares_.size());
    std::error_code ec;
    if (!fs::create_directories(dir, ec) && ec) return;
    shares_.push_back({dir, timed, timed});
    for (std::size_t i : group)
      if (timed_item(i)) share_of_item_[i] = shares_.size() - 1;
  }
  static std::string make_share_root() {
    struct statvfs vfs {};
    std::string base;
    constexpr unsigned long long kMinFree = 8ULL << 30;
    if (::statvfs("/dev/shm", &vfs) == 0 && static_cast<unsigned long long>(vfs.f_bavail) * vfs.f_frsize >= kMinFree &&
        ::access("/dev/shm", W_OK) == 0)
      base = "/dev/shm";
    else
      base = launch_work_dir(Launcher{}, "");
    std::string tmpl = base + "/mskb-instances-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) return {};
    return tmpl;
  }
  std::pair<std::string, int> share_of(const Item& it) {
    std::lock_guard<std::mutex> lock(share_mutex_);
    const auto s = share_of_item_.find(static_cast<std::size_t>(&it - items_.data()));
    if (s == share_of_item_.end()) return {};
    return {shares_[s->second].dir, shares_[s->second].consumers};
  }
  void share_part_done(const Item& it) {
    std::lock_guard<std::mutex> lock(share_mutex_);
    const auto s = share_of_item_.find(static_cast<std::size_t>(&it - items_.data()));
    if (s == share_of_item_.end()) return;
    GroupShare& g = shares_[s->second];
    share_of_item_.erase(s);
    if (--g.remaining == 0) {
      std::error_code ec;
      fs::remove_all(g.dir, ec);
    }
  }
  void remove_share_root() {
    std::lock_guard<std::mutex> lock(share_mutex_);
    if (share_root_.empty()) return;
    std::error_code ec;
    fs::remove_all(share_root_, ec);
    share_root_.clear();
  }

  // Runs `units` on `per_lane` workers per GPU lane. A lane takes the next unit when its workers
  // have nothing left to start, so a unit's items all run on that lane, in order, up to
  // `per_lane` of them (of one unit or several) at once. The verifiers' host threads are shared
  // out among all the run's workers on this host (all CPUs but two, divided). In a timing phase
  // with several timing parts at once, each verifier's two pools (the instance prepared ahead,
  // the main thread's references and comparisons) count separately, so the host is never
  // oversubscribed while one of them times: the timed process's launching thread keeps its core
  // (a descheduled launch stretches a sample).
  void run_phase(const std::vector<std::vector<std::size_t>>& units, int per_lane, Part part, const Results* prior) {
    started_[static_cast<int>(part)] = 0;
    if (items_progress_.phase)
      items_progress_.phase(part == Part::checks ? "phase 1/2: checks" : part == Part::timing ? "phase 2/2: timing" : "", items_.size());
    per_lane = std::max(1, per_lane);
    const int pools = part == Part::timing && per_lane > 1 ? 2 : 1;
    share_cpus(pools * per_lane);
    std::size_t next_unit = 0;
    std::mutex queue_mutex;
    std::vector<std::deque<std::size_t>> queued(lanes_.size());  // items of the units each lane took, not started yet
    // With shared instances (plan_share), a group's later timing parts wait while the lane has
    // other work (the next group's first part) until none of their group's parts runs: they then
    // copy every instance the first one made, instead of waiting beside it for each one it makes
    // (docs/harness.md section 9). The lane's last group may still run its parts side by side.
    const bool stagger = part == Part::timing && share_instances_ && per_lane > 1;
    std::vector<std::size_t> unit_of(items_.size(), 0);
    for (std::size_t u = 0; u < units.size(); ++u)
      for (std::size_t i : units[u]) unit_of[i] = u;
    std::vector<int> running(units.size(), 0);
    const auto start_item = [&](std::deque<std::size_t>& q, std::size_t at) {
      const std::size_t i = q[at];
      q.erase(q.begin() + static_cast<std::ptrdiff_t>(at));
      ++running[unit_of[i]];
      return i;
    };
    auto next_item = [&](std::size_t lane) -> std::optional<std::size_t> {
      std::lock_guard<std::mutex> lock(queue_mutex);
      if (stagger) {
        std::deque<std::size_t>& q = queued[lane];
        for (std::size_t at = 0; at < q.size(); ++at)
          if (running[unit_of[q[at]]] == 0) return start_item(q, at);
        if (next_unit < units.size()) {
          const std::size_t first = q.size();
          q.insert(q.end(), units[next_unit].begin(), units[next_unit].end());
          ++next_unit;
          return start_item(q, first);
        }
        if (q.empty()) return std::nullopt;
        return start_item(q, 0);
      }
      if (queued[lane].empty() && next_unit < units.size()) {
        queued[lane].assign(units[next_unit].begin(), units[next_unit].end());
        ++next_unit;
      }
      if (queued[lane].empty()) return std::nullopt;
      const std::size_t i = queued[lane].front();
      queued[lane].pop_front();
      return i;
    };
    const std::size_t workers = lanes_.size() * static_cast<std::size_t>(per_lane);
    auto worker = [&](std::size_t w) {
      const std::string& lane = lanes_[w % lanes_.size()];
      while (const std::optional<std::size_t> i = next_item(w % lanes_.size())) {
        std::optional<ContenderRun> r = run_item(items_[*i], lane, part, prior ? &(*prior)[*i] : nullptr);
        {
          std::lock_guard<std::mutex> lock(queue_mutex);
          --running[unit_of[*i]];
        }
        std::lock_guard<std::mutex> lock(partial_mutex_);
        results_[*i] = std::move(r);
        if (on_partial_) report_partial(prior);
      }
    };
    if (workers == 1) {
      worker(0);
      return;
    }
    std::vector<std::thread> threads;
    for (std::size_t w = 0; w < workers; ++w) threads.emplace_back(worker, w);
    for (auto& t : threads) t.join();
  }

  const SuitePlan& plan_;
  const Progress& progress_;
  const PartialReport& on_partial_;
  const ProgressItems& items_progress_;
  EvalOptions eval_;
  SuiteReport report_;
  std::vector<std::string> lanes_;
  std::string sanitizer_;
  std::map<std::string, std::string> lane_locks_;  // lane -> its GPU lock file (two-phase runs)
  int host_threads_ = 0;                           // the current phase's cap per verifier
  int checks_host_threads_ = 0;                    // a pipelined run's cap per check part
  int checks_per_gpu_ = 1, timing_overlap_ = 1;    // resolved (resolve_concurrency)
  BuildPool pool_;  // joins its workers before the items it built are gone
  std::vector<Item> items_;
  Results results_;
  std::mutex progress_mutex_, partial_mutex_;
  std::atomic<std::size_t> started_[3] = {};  // items started, per Part (all, checks, timing)
  bool pipelined_ = false;
  bool load_outside_lock_ = true;  // MSKB_LOAD_OUTSIDE_LOCK=0: off (RunRequest::load_before_lock)
  // The timing parts' shared instances (plan_share).
  struct GroupShare {
    std::string dir;
    int consumers = 0, remaining = 0;
  };
  bool share_instances_ = false;
  std::mutex share_mutex_;
  std::string share_root_;
  std::vector<GroupShare> shares_;
  std::map<std::size_t, std::size_t> share_of_item_;  // item -> its group's share
};

}  // namespace

std::vector<SuiteGroup> suite_groups(const SuitePlan& plan, std::size_t* skipped) {
  std::size_t n = 0;
  std::vector<SuiteGroup> out;
  for (auto& g : planned_groups(plan, {}, n)) {
    if (g.kernels.empty()) continue;
    SuiteGroup sg{g.spec->name, g.precision, {}};
    for (auto& k : g.kernels) sg.kernels.push_back(std::move(k.first));
    out.push_back(std::move(sg));
  }
  if (skipped != nullptr) *skipped = n;
  return out;
}

SuiteReport run_suite(const SuitePlan& plan, const Progress& progress, const PartialReport& on_partial, const ProgressItems& items) {
  return SuiteRun(plan, progress, on_partial, items).run();
}

}  // namespace mskb
