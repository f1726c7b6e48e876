// Owns judging one item of a suite run: a contender's build (its outcome, typed by the compiler)
// becomes a disposition, a built one is evaluated (evaluator.hpp) on the lane the scheduler gave
// it, behind the sanitizer gate when the plan asks for it, and the result is written as the
// item's line. Knows nothing of how items are scheduled (lane_scheduler.hpp) or reported.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mskb/harness/compiler.hpp"
#include "mskb/harness/evaluator.hpp"
#include "mskb/harness/lane_scheduler.hpp"
#include "mskb/harness/suite_plan.hpp"
#include "mskb/protocol/vocabulary.hpp"

namespace mskb {

struct ContenderRun {
  ContenderResult result;
  CompileResult build;
  std::string gpu;     // the CUDA_VISIBLE_DEVICES entry of the lane that evaluated it
  std::string expect;  // wrong/ kernels: the declared disposition (the run is right when it matches)
  bool timing_pending = false;  // partial reports of a two-phase run: checks passed, not yet timed
  bool as_expected() const { return expect.empty() ? is_correct(result.disposition) : to_string(result.disposition) == expect; }
};

// The results of a run's items, by index (nullopt: not judged, or not yet).
using Results = std::vector<std::optional<ContenderRun>>;

class SharedInstances;  // the timing parts' shared instances (src/mskb/harness/shared_instances.hpp)

// The disposition of a build that did not succeed (CompileResult::outcome): harness_error for a
// missing file, rejected_static for a refused request or a refusal by the binary policy,
// compile_error otherwise.
Disposition build_disposition(const CompileResult& build);

// The compute-sanitizer binary a plan needs ("" when it needs none); throws when it is missing.
std::string plan_sanitizer(const SuitePlan& plan);

// One (task, precision, kernel) of a run, its build submitted.
struct JudgeItem {
  const TaskSpec* spec;
  Precision precision;
  KernelFile kernel;
  std::shared_future<CompileResult> build;
  std::string expect;  // wrong/ kernels: the disposition their header declares
  // Shipped contenders of a group whose user kernels are all optional: run only when one of
  // these items (indices) is judged.
  std::vector<std::size_t> needs_one_of;
};

// Where and how one part of an item runs.
struct JudgePlace {
  std::string lane;       // CUDA_VISIBLE_DEVICES value
  std::string gpu_lock;   // the lane's lock file ("" for none)
  int host_threads = 0;   // the verifier's host threads (EvalOptions::host_threads)
  int nice = 0;           // added to the runner's nice value
  std::pair<std::string, int> share;  // timing parts: the group's shared instances (folder, consumers)
};

class Judge {
 public:
  // `say(item, part, line, final)`: an item's status line (final: its result; an empty final
  // line: nothing to do in this part). `on_result(prior)`: called (serialized) after each
  // finished part with its results stored, `prior` the phase's checks when it is a timing phase.
  using Say = std::function<void(std::size_t item, Part part, const std::string& line, bool final_line)>;
  using OnResult = std::function<void(const Results* prior)>;
  Judge(const SuitePlan& plan, EvalOptions eval, const std::vector<JudgeItem>& items, const LaneScheduler& lanes, SharedInstances& shares,
        Say say, OnResult on_result, std::string sanitizer, bool load_outside_lock)
      : plan_(plan), eval_(std::move(eval)), items_(items), lanes_(lanes), shares_(shares), say_(std::move(say)),
        on_result_(std::move(on_result)), sanitizer_(std::move(sanitizer)), load_outside_lock_(load_outside_lock) {}

  // The scheduler's work for one part of a phase: item i judged on a lane (its lock, `host_threads`
  // per verifier, `nice`, in a timing part its group's shared instances), the result stored in
  // `into[i]`; `prior` the items' checks parts in a timing phase, `shown` what on_result gets
  // (the checks, in a timing phase or beside the checks of a pipelined run). Starts the part's
  // count again.
  LaneWork part_work(Part part, int host_threads, int nice, Results& into, const Results* prior, const Results* shown);

  // Item `i`, one part. `prior` is its checks part, when the run is two-phase: a contender that
  // failed it is not timed, one that passed adds its counts. nullopt: the item is not judged
  // (an optional kernel without the entry point, and the like).
  std::optional<ContenderRun> run_item(std::size_t i, const JudgePlace& where, Part part, const std::optional<ContenderRun>* prior);

 private:
  bool judged_optional(const JudgeItem& it) const;
  std::pair<std::vector<std::string>, double> sanitize_gate(std::size_t i, Part part, const EvalOptions& e, const std::string& so,
                                                            const std::string& label, ContenderResult& r);
  void evaluate_built(std::size_t i, const JudgePlace& where, Part part, const std::string& so, const std::string& label,
                      ContenderResult& r);

  const SuitePlan& plan_;
  EvalOptions eval_;
  const std::vector<JudgeItem>& items_;
  const LaneScheduler& lanes_;
  SharedInstances& shares_;
  Say say_;
  OnResult on_result_;
  std::string sanitizer_;
  bool load_outside_lock_;
  std::mutex results_mutex_;
  std::atomic<std::size_t> started_[3] = {};  // items started, per Part (all, checks, timing)
};

}  // namespace mskb
