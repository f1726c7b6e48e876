// Owns the four CUDAMaster agents. Each is a prompt template pair under prompts/
// (<agent>.system.md, static, and <agent>.user.md, rendered from a typed input), a request
// builder, and an output parser:
//   Planner   task + current best (code, times, bottleneck) + history  -> Plan
//   Coder     plan + current best code                                -> a kernel file (CodeAnswer)
//   Compiler  failed build (log, recipe)                              -> BuildRecipe
//   Debug     failing file + what went wrong                          -> a kernel file (CodeAnswer)
// Agents know nothing of the loop, the store or the harness: they turn inputs into requests and
// answers into typed results, and never throw on a bad answer (they describe it).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cudamaster/agents/code_answer.hpp"
#include "cudamaster/agents/prompt.hpp"
#include "cudamaster/agents/task_brief.hpp"
#include "cudamaster/llm/types.hpp"

namespace cudamaster::agents {

enum class Agent { planner, coder, compiler, debug };
const char* to_string(Agent a);

// Per-call generation settings (the loop sets them from the command line).
struct AgentSettings {
  int max_tokens = 8192;
  std::optional<double> temperature;
  std::optional<std::string> reasoning_effort;
};

// Which agent a request was built for, from its system message (replay and test servers use it).
std::optional<Agent> agent_of(const llm::ChatRequest& request);

// ---- Planner
struct PlannerInput {
  TaskBrief task;
  int round = 1, rounds = 1;
  std::string best_label;    // "the naive baseline" / "round 2's candidate"
  std::string best_summary;  // "P = 1.00 (complexity-weighted speedup over the baseline) ..."
  std::string best_code;
  std::vector<PerfRow> performance;
  std::string profile;         // rendered profile ("" when none)
  std::string profile_absent;  // why there is none ("profiling disabled (--profile none)")
  std::vector<RoundHistory> history;
};

struct Strategy {
  std::string name, change, expected_gain;
};

struct Plan {
  bool structured = false;  // the JSON object was found and read
  std::string bottleneck;
  std::vector<Strategy> strategies;
  std::optional<double> expected_speedup;
  std::string risks, rationale;
  std::string raw;                    // the whole answer
  std::vector<std::string> problems;  // what was missing or malformed (the plan is still usable)

  std::string summary() const;  // one line: "warp per row (coalesced loads); expected 2.0x"
  std::string render() const;   // the text the Coder and Debug agents see
};

llm::ChatRequest planner_request(PromptLibrary& prompts, const PlannerInput& in, const AgentSettings& s);
Plan parse_plan(const std::string& answer);

// ---- Coder
struct CoderInput {
  TaskBrief task;
  int round = 1, rounds = 1;
  std::optional<Plan> plan;  // empty with --no-planner: the Coder sees the measurements instead
  std::string best_label, best_summary, best_code;
  std::vector<PerfRow> performance;
  std::string profile;
  std::vector<RoundHistory> history;
};

llm::ChatRequest coder_request(PromptLibrary& prompts, const CoderInput& in, const AgentSettings& s);
CodeAnswer parse_coder_answer(const std::string& answer, const EntryPoint& entry, bool finish_truncated);

// ---- Compiler
struct BuildRecipe {
  std::string arch = "90";
  std::vector<std::string> flags;
  bool lineinfo = false;
};
std::string describe(const BuildRecipe& r);  // "arch 90, flags [-O3], lineinfo off"

struct CompilerInput {
  TaskBrief task;
  BuildRecipe recipe;
  std::string log;   // the compiler's output (trimmed to a readable size by the caller)
  std::string code;
  std::vector<std::string> allowed_archs;
  std::string allowed_flags;  // human-readable whitelist
};

struct CompilerAdvice {
  bool ok = false;             // a usable recipe (or a clear "code problem") was read
  BuildRecipe recipe;
  bool code_problem = false;   // the agent says the code must change, not the recipe
  std::string reason;
  std::vector<std::string> problems;
};

llm::ChatRequest compiler_request(PromptLibrary& prompts, const CompilerInput& in, const AgentSettings& s);
// Flags are checked against mskb's whitelist and the arch against `allowed_archs`.
CompilerAdvice parse_compiler_answer(const std::string& answer, const BuildRecipe& current,
                                     const std::vector<std::string>& allowed_archs);

// ---- Debug
enum class ProblemKind { answer, compile_error, screen, harness };
const char* to_string(ProblemKind k);  // "unusable answer", "compile error", "integrity screen", "harness"

struct DebugInput {
  TaskBrief task;
  std::optional<Plan> plan;
  ProblemKind kind = ProblemKind::harness;
  std::string problem;              // the report (diagnostics, screen violations, failure report)
  std::string code;                 // the failing file (possibly partial)
  int attempt = 1, attempts = 1;
  std::vector<std::string> earlier; // one line per earlier fix attempt in this round
};

llm::ChatRequest debug_request(PromptLibrary& prompts, const DebugInput& in, const AgentSettings& s);
CodeAnswer parse_debug_answer(const std::string& answer, const EntryPoint& entry, bool finish_truncated);

}  // namespace cudamaster::agents
