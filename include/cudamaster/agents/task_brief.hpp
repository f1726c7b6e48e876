// Owns what every agent is told about a task, and the measurement views the prompts share. A
// TaskBrief is built from the task spec's public face only: semantics, signature and the paper
// sweep. Held-out shapes are never part of it (the harness checks them; no prompt shows them).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cudamaster/agents/code_answer.hpp"
#include "cudamaster/agents/prompt.hpp"
#include "mskb/core/task.hpp"

namespace cudamaster::agents {

struct TaskBrief {
  std::string task, precision, category;
  std::string semantics;
  std::string signature;   // "void spmv_csr(int rows, const float* values, ...)"
  std::string paper_sweep; // one line per timed size: "- rows=1024,cols=2048 (weight 1.6%)"
  std::string vendor;      // the vendor contender's description, "" when there is none
  EntryPoint entry;
  bool allow_libraries = false;
  std::string gpu = "NVIDIA GPU";
};

TaskBrief make_task_brief(const mskb::TaskSpec& spec, mskb::Precision p, bool allow_libraries, const std::string& gpu);

// Variables every template may use: task, precision, category, semantics, signature, symbol,
// paper_sweep, vendor, gpu, and `rules` (prompts/rules.md rendered for this task).
PromptVars task_vars(PromptLibrary& prompts, const TaskBrief& brief);

// One timed size of a measured kernel, for the performance tables.
struct PerfRow {
  std::string shape;                 // "rows=1024,cols=2048"
  double time_us = 0;                // this kernel's median
  double baseline_us = 0;            // the naive baseline's median (same run)
  std::optional<double> vendor_us;   // the vendor contender's median, when it ran correctly
  double roofline_us = 0;            // 0 when the device ceilings are unknown
};

// A Markdown table: shape | time | speedup vs baseline | vs vendor | % of roofline.
std::string render_performance_table(const std::vector<PerfRow>& rows);

// What earlier rounds did, one entry per round, oldest first.
struct RoundHistory {
  int round = 0;
  std::string plan;      // the plan's one-line summary ("" without a Planner)
  std::string outcome;   // "accepted: P 1.00 -> 2.31", "rejected: correct but P 0.41 <= best 1.00", ...
  std::vector<std::string> steps;  // "coder: compile_error (error: identifier ... undefined)", ...
};
std::string render_history(const std::vector<RoundHistory>& history);

}  // namespace cudamaster::agents
