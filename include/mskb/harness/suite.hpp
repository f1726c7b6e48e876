// Owns a benchmark run over tasks x precisions x contenders (mskb run / mskb check) on this host:
// the plan's groups (suite_plan.hpp) built in a CPU pool while the GPU evaluates, scheduled on
// the GPU lanes (lane_scheduler.hpp), each item judged (judge.hpp); the report it returns renders
// through the report library (mskb/report/document.hpp and the renderers beside it).
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
#include "mskb/harness/judge.hpp"
#include "mskb/harness/lane_scheduler.hpp"
#include "mskb/harness/sanitizer.hpp"
#include "mskb/harness/suite_plan.hpp"
#include "mskb/protocol/vocabulary.hpp"

namespace mskb {

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

}  // namespace mskb
