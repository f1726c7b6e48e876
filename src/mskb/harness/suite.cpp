// The suite's local executor (run_suite): the plan's groups (suite_plan.hpp) become items whose
// builds go to the pool; the lane scheduler (lane_scheduler.hpp) runs them on the GPU lanes, in
// one phase or two (checks, then timing); the judge (judge.hpp) judges each; the report grows as
// they finish.
#include "mskb/harness/suite.hpp"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <optional>

#include <fmt/format.h>

#include "build_pool.hpp"
#include "mskb/core/random_shapes.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/harness/reproduce.hpp"
#include "mskb/util/parallel.hpp"
#include "shared_instances.hpp"

namespace mskb {

namespace {

// What a pipelined run's check parts and builds add to their nice value (run_pipelined).
constexpr int kBackgroundNice = 10;

using Results = std::vector<std::optional<ContenderRun>>;

// One run of the suite: its items, their results, the lanes they run on.
class SuiteRun {
 public:
  SuiteRun(const SuitePlan& plan, const Progress& progress, const PartialReport& on_partial, const ProgressItems& items)
      : plan_(plan), progress_(progress), on_partial_(on_partial), items_progress_(items), eval_(plan.eval), pool_(plan.compile, plan.build_jobs) {}
  SuiteRun(const SuiteRun&) = delete;
  SuiteRun& operator=(const SuiteRun&) = delete;

  SuiteReport run() {
    prepare();
    plan_items();
    resolve_concurrency();
    pool_.start();
    judge_.emplace(
        plan_, eval_, items_, *lanes_, shares_,
        [this](std::size_t i, Part part, const std::string& line, bool final_line) { say(i, part, line, final_line); },
        [this](const Results* prior) {
          if (on_partial_) report_partial(prior);
        },
        sanitizer_, load_outside_lock_);
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
    } else {
      if (!eval_.launcher.slurm()) lanes_->make_locks();
      if (pipelined_) {
        run_pipelined();
      } else {
        run_phase(units(false), checks_per_gpu_, Part::checks, nullptr);
        const Results checked = std::move(results_);
        results_.assign(items_.size(), std::nullopt);
        for (const auto& g : units(true)) plan_share(g, checked);
        run_phase(units(true), timing_overlap_, Part::timing, &checked);
      }
    }
    shares_.remove_root();
    for (auto& r : results_)
      if (r) report_.runs.push_back(std::move(*r));
    return std::move(report_);
  }

 private:
  // The device, the lanes, the random shapes' seed and the sanitizer.
  void prepare() {
    // Random shapes besides the public ones: drawn per run unless the seed is given (recorded).
    eval_.random_shapes = plan_.eval.matrix_path.empty() && plan_.eval.custom_shapes.empty() ? plan_.random_shapes : 0;
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
    lanes_.emplace(gpu_lanes(plan_.gpus, report_.device.value("device_count", 1), std::getenv("CUDA_VISIBLE_DEVICES")));
    report_.device["lanes"] = lanes_->lanes();
    sanitizer_ = plan_sanitizer(plan_);
  }

  // The checks and timing parts at once per GPU (auto: from this host and the contenders) and
  // whether the phases overlap; recorded in the report. Before the builds start.
  void resolve_concurrency() {
    checks_per_gpu_ = plan_.checks_per_gpu > 0 ? plan_.checks_per_gpu
                      : eval_.launcher.slurm() ? 1
                                               : auto_checks_per_gpu(available_cpus(), host_memory_gb(), lanes_->lanes().size());
    const bool all_trusted = std::all_of(items_.begin(), items_.end(), [](const JudgeItem& it) { return it.kernel.trusted; });
    // Timing parts at once per GPU: one where the runners are not on this host (a Slurm
    // launcher: the lock file is local).
    timing_overlap_ = eval_.launcher.slurm()       ? 1
                      : plan_.timing_overlap > 0 ? plan_.timing_overlap
                                                 : auto_timing_overlap(all_trusted);
    report_.device["checks_per_gpu"] = checks_per_gpu_;
    if (!check_only()) report_.device["timing_overlap"] = two_phase() ? timing_overlap_ : 1;
    if (report_.reproduce.contains("settings")) {
      report_.reproduce["settings"]["checks_per_gpu"] = checks_per_gpu_;
      report_.reproduce["settings"]["timing_overlap"] = timing_overlap_;
    }
    // With MSKB_PIPELINE=1, timing parts several at once (trusted kernels only: docs/harness.md
    // section 9) also start as soon as their group is checked, beside the other groups' checks.
    // Off by default: on the H200 it bought no wall time, the checks waiting for the GPU behind
    // the timings (section 9).
    pipelined_ = two_phase() && timing_overlap_ > 1 && eval_.settings.pipeline.value_or(false);
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
    for (const SuiteGroup& g : plan_groups(plan_, progress_, skipped_groups)) {
      const TaskSpec* spec = &get_task(g.task);
      std::vector<std::size_t> optional, shipped;
      bool all_optional = true;
      for (std::size_t k = 0; k < g.kernels.size(); ++k) {
        const KernelFile& f = g.kernels[k];
        if (f.optional) optional.push_back(items_.size());
        else if (f.trusted) shipped.push_back(items_.size());
        else all_optional = false;
        items_.push_back({spec, g.precision, f, pool_.submit(f), g.expect[k], {}});
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

  // The items one by one, or (grouped) each (task, precision) group whole.
  WorkUnits units(bool grouped) const {
    WorkUnits out;
    for (std::size_t i = 0; i < items_.size(); ++i) {
      if (grouped && !out.empty()) {
        const JudgeItem& prev = items_[out.back().front()];
        if (prev.spec == items_[i].spec && prev.precision == items_[i].precision) {
          out.back().push_back(i);
          continue;
        }
      }
      out.push_back({i});
    }
    return out;
  }

  // An item's line: to ProgressItems::item when set (an empty final line: nothing to do), else to
  // Progress. In a pipelined run an item's timing part is a line of its own (index + items).
  void say(std::size_t i, Part part, const std::string& line, bool final_line) {
    std::lock_guard<std::mutex> lock(progress_mutex_);
    const std::size_t at = i + (pipelined_ && part == Part::timing ? items_.size() : 0);
    if (items_progress_.item) items_progress_.item(at, line, final_line);
    else if (!line.empty()) progress_(line, final_line);
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
    const WorkUnits groups = units(true);
    Results checked(items_.size());
    if (items_progress_.phase) items_progress_.phase("checks and timing", 2 * items_.size());
    const int timing_threads = lanes_->cpu_share(2 * timing_overlap_), checks_threads = lanes_->cpu_share(checks_per_gpu_);
    lanes_->run_two_stages(
        groups, checks_per_gpu_, timing_overlap_, judge_->part_work(Part::checks, checks_threads, kBackgroundNice, checked, nullptr, &checked),
        [&](std::size_t g) { plan_share(groups[g], checked); }, judge_->part_work(Part::timing, timing_threads, 0, results_, &checked, &checked));
  }

  // A group's timing parts share the instances they prepare (shared_instances.hpp): those that
  // passed their checks.
  void plan_share(const std::vector<std::size_t>& group, const Results& checked) {
    if (!share_instances_) return;
    std::vector<std::size_t> timed;
    for (std::size_t i : group)
      if (checked[i] && is_correct(checked[i]->result.disposition)) timed.push_back(i);
    shares_.plan(timed);
  }

  // Runs `units` on `per_lane` workers per GPU lane (LaneScheduler::run). The verifiers' host
  // threads are shared out among all the run's workers on this host (all CPUs but two, divided).
  // In a timing phase with several timing parts at once, each verifier's two pools (the instance
  // prepared ahead, the main thread's references and comparisons) count separately, so the host
  // is never oversubscribed while one of them times: the timed process's launching thread keeps
  // its core (a descheduled launch stretches a sample). With shared instances (plan_share), a
  // group's later timing parts wait while the lane has other work (the next group's first part)
  // until none of their group's parts runs: they then copy every instance the first one made,
  // instead of waiting beside it for each one it makes (docs/harness.md section 9).
  void run_phase(const WorkUnits& units, int per_lane, Part part, const Results* prior) {
    if (items_progress_.phase)
      items_progress_.phase(part == Part::checks ? "phase 1/2: checks" : part == Part::timing ? "phase 2/2: timing" : "", items_.size());
    per_lane = std::max(1, per_lane);
    const int pools = part == Part::timing && per_lane > 1 ? 2 : 1;
    const int host_threads = lanes_->cpu_share(pools * per_lane);
    const bool stagger = part == Part::timing && share_instances_ && per_lane > 1;
    lanes_->run(units, per_lane, stagger, judge_->part_work(part, host_threads, 0, results_, prior, prior));
  }

  const SuitePlan& plan_;
  const Progress& progress_;
  const PartialReport& on_partial_;
  const ProgressItems& items_progress_;
  EvalOptions eval_;
  SuiteReport report_;
  std::optional<LaneScheduler> lanes_;
  std::string sanitizer_;
  int checks_per_gpu_ = 1, timing_overlap_ = 1;  // resolved (resolve_concurrency)
  bool pipelined_ = false;
  bool load_outside_lock_ = true;  // MSKB_LOAD_OUTSIDE_LOCK=0: off (RunRequest::load_before_lock)
  bool share_instances_ = false;
  SharedInstances shares_;  // the timing parts' shared instances (plan_share)
  std::vector<JudgeItem> items_;
  Results results_;
  std::mutex progress_mutex_;
  BuildPool pool_;  // joins its workers before the items it built are gone
  std::optional<Judge> judge_;
};

}  // namespace

SuiteReport run_suite(const SuitePlan& plan, const Progress& progress, const PartialReport& on_partial, const ProgressItems& items) {
  return SuiteRun(plan, progress, on_partial, items).run();
}

}  // namespace mskb
