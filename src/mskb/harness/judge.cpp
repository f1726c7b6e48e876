// One item of a suite run judged (mskb/harness/judge.hpp).
#include "mskb/harness/judge.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "mskb/harness/lane_scheduler.hpp"  // lane_file_name
#include "mskb/harness/sanitizer.hpp"
#include "shared_instances.hpp"

namespace fs = std::filesystem;

namespace mskb {

Disposition build_disposition(const CompileResult& build) {
  switch (build.outcome) {
    case CompileOutcome::missing_file:
      return Disposition::harness_error;
    case CompileOutcome::refused_request:
    case CompileOutcome::refused_policy:
      return Disposition::rejected_static;
    case CompileOutcome::built:
    case CompileOutcome::compile_error:
    case CompileOutcome::build_failed:
      break;
  }
  return build.refused_policy ? Disposition::rejected_static : Disposition::compile_error;
}

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

// The sanitizer gate of a timed run: memcheck and racecheck before the timing. A tool that does
// not pass leaves its result in `r`; returns the tools that ran clean and their seconds.
std::pair<std::vector<std::string>, double> Judge::sanitize_gate(std::size_t i, Part part, const EvalOptions& e, const std::string& so,
                                                                 const std::string& label, ContenderResult& r) {
  const JudgeItem& it = items_[i];
  std::vector<std::string> sanitized;
  double gate_s = 0;
  for (const SanitizerTool tool : {SanitizerTool::memcheck, SanitizerTool::racecheck}) {
    say_(i, part, label + ": " + to_string(tool) + " on " + kSanitizerShapes, false);
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
void Judge::evaluate_built(std::size_t i, const JudgePlace& where, Part part, const std::string& so, const std::string& label,
                           ContenderResult& r) {
  const JudgeItem& it = items_[i];
  say_(i, part, label + ": evaluating", false);
  EvalOptions e = eval_;
  e.part = part;
  if (lanes_.lanes().size() > 1 || !plan_.gpus.empty()) e.env.push_back({"CUDA_VISIBLE_DEVICES", where.lane});
  if (!where.gpu_lock.empty()) e.gpu_lock = where.gpu_lock;
  if (lanes_.lanes().size() > 1) e.gpu_lock_log_suffix = "gpu" + lane_file_name(where.lane);  // MSKB_GPU_LOCK_LOG: one file per lane
  // Shipped kernels' libraries loaded before the lock (RunRequest::load_before_lock).
  e.load_before_lock = it.kernel.trusted && load_outside_lock_;
  e.host_threads = where.host_threads;
  if (part == Part::timing) std::tie(e.instance_share_dir, e.instance_share_consumers) = where.share;
  if (where.nice != 0) e.nice = where.nice;
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
  if (gate) std::tie(sanitized, gate_s) = sanitize_gate(i, part, e, so, label, r);
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
bool Judge::judged_optional(const JudgeItem& it) const {
  const CompileResult& b = it.build.get();
  if (!b.ok) return false;
  const auto syms = exported_symbols(b.so_path);
  return syms.empty() || std::find(syms.begin(), syms.end(), it.spec->symbol(it.precision)) != syms.end();
}

LaneWork Judge::part_work(Part part, int host_threads, int nice, Results& into, const Results* prior, const Results* shown) {
  started_[static_cast<int>(part)] = 0;
  return [this, part, host_threads, nice, &into, prior, shown](std::size_t i, const std::string& lane) {
    std::optional<ContenderRun> r;
    {
      // However a timing part ends, its group's shared instances lose a consumer.
      struct ShareDone {
        SharedInstances& shares;
        std::size_t item;
        bool timing;
        ~ShareDone() {
          if (timing) shares.part_done(item);
        }
      } share_done{shares_, i, part == Part::timing};
      JudgePlace where;
      where.lane = lane;
      where.gpu_lock = lanes_.lock_of(lane);
      where.host_threads = host_threads;
      where.nice = nice;
      if (part == Part::timing) where.share = shares_.of(i);
      r = run_item(i, where, part, prior ? &(*prior)[i] : nullptr);
    }
    std::lock_guard<std::mutex> lock(results_mutex_);
    into[i] = std::move(r);
    if (on_result_) on_result_(shown);
  };
}

std::optional<ContenderRun> Judge::run_item(std::size_t i, const JudgePlace& where, Part part, const std::optional<ContenderRun>* prior) {
  const JudgeItem& it = items_[i];
  // Skipped or failed its checks (a declared kernel that failed as declared too): not timed.
  if (prior && !(*prior && is_correct((*prior)->result.disposition))) {
    say_(i, part, "", true);
    return *prior;
  }
  const std::string sym = it.spec->symbol(it.precision);
  // An optional kernel that does not build or lacks the entry point is not judged here, nor
  // the shipped contenders of a group where no kernel is.
  if (it.kernel.optional && !judged_optional(it)) {
    say_(i, part, fmt::format("{} {} {}: skipped (no {} in it)", it.spec->name, to_string(it.precision), it.kernel.contender, sym), true);
    return std::nullopt;
  }
  if (!it.needs_one_of.empty() &&
      std::none_of(it.needs_one_of.begin(), it.needs_one_of.end(), [&](std::size_t j) { return judged_optional(items_[j]); })) {
    say_(i, part, fmt::format("{} {} {}: skipped (no kernel of the group exports {})", it.spec->name, to_string(it.precision), it.kernel.contender, sym),
         true);
    return std::nullopt;
  }
  const std::size_t idx = ++started_[static_cast<int>(part)];
  const std::string label = fmt::format("[{:>3}/{}] {} {} {}{}{}", idx, items_.size(), it.spec->name, to_string(it.precision),
                                        it.kernel.contender, lanes_.lanes().size() > 1 ? " (gpu " + where.lane + ")" : "",
                                        part == Part::all ? "" : " " + to_string(part));
  say_(i, part, label + ": building", false);
  ContenderRun run;
  run.build = it.build.get();
  run.gpu = where.lane;
  run.expect = it.expect;
  ContenderResult& r = run.result;
  r.task = it.spec->name;
  r.precision = to_string(it.precision);
  r.contender = it.kernel.contender;
  r.kernel = it.kernel.path;
  double part_s = 0;  // this part's own evaluation (the result also sums its checks part's)
  if (!run.build.ok) {
    r.disposition = build_disposition(run.build);
    r.message = run.build.error;
  } else {
    const auto syms = exported_symbols(run.build.so_path);
    auto exports = [&](const std::string& s) { return std::find(syms.begin(), syms.end(), s) != syms.end(); };
    if (!syms.empty() && !exports(sym) && !it.kernel.trusted && plan_.skip_missing_precisions &&
        (exports(it.spec->symbol(Precision::fp32)) || exports(it.spec->symbol(Precision::bf16)))) {
      say_(i, part, label + ": skipped (exports no " + sym + ")", true);
      return std::nullopt;
    }
    if (!syms.empty() && !exports(sym)) {
      r.disposition = Disposition::missing_entry;
      r.message = "missing_entry: " + fs::path(it.kernel.path).filename().string() + " does not export " + it.spec->signature(it.precision);
    } else {
      evaluate_built(i, where, part, run.build.so_path, label, r);
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
  say_(i, part, fmt::format("{}: {}{}{}{} ({:.1f} s{})", label, d,
                            r.sanitized.empty() ? "" : " (" + r.sanitized.front() + (r.sanitized.size() > 1 ? " + " + r.sanitized.back() : "") + " clean)",
                            it.expect.empty() ? "" : (d == it.expect ? " (as declared)" : " (DECLARED " + it.expect + ")"),
                            r.message.empty() ? "" : " - " + r.message, part_s, build_note),
       true);
  return run;
}

}  // namespace mskb
