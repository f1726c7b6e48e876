// One job's implementation (internal to src/cudamaster/loop; the contract is run_job in
// optimizer.hpp): the Job class and the texts it writes for the agents. Its parts:
//   job.cpp         the job: journal, references (baseline, vendor), rounds, its end
//   job_steps.cpp   the journaled steps: LLM calls, candidates, builds, evaluations, profiles
//   job_gate.cpp    the acceptance gate: compute-sanitizer, the re-measurement beside the baseline
//   job_round.cpp   one round: profile, plan, code, and the debug loop over a candidate's problems
//   job_text.cpp    what the Debug agent and the progress lines are told (reports, verdicts)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudamaster/loop/optimizer.hpp"
#include "cudamaster/loop/score.hpp"
#include "cudamaster/loop/screen.hpp"
#include "mskb/harness/sanitizer.hpp"
#include "mskb/harness/suite_plan.hpp"
#include "mskb/util/text.hpp"

namespace cudamaster::loop::detail {

// Ends a job from anywhere inside it.
struct JobStop {
  store::Status status;
  std::string reason, message;
};

struct Cand {
  std::int64_t id = 0;
  std::string source, file, sha;
};

struct LlmOut {
  std::string text;
  bool truncated = false;
  std::int64_t input_tokens = 0, output_tokens = 0;
};

struct Problem {
  agents::ProblemKind kind = agents::ProblemKind::harness;
  std::string text;   // for the Debug agent
  std::string brief;  // for history and progress
};

// ---- texts (job_text.cpp)

using mskb::read_text;
void write_text(const std::string& path, const std::string& text);  // unless the file already holds it
std::string tokens(std::int64_t n);                                   // "812", "1.3k"
// Any text as one log line or report cell of at most `max` bytes (mskb::collapse_whitespace).
inline std::string one_line(const std::string& s, std::size_t max = 160) { return mskb::collapse_whitespace(s, max); }
std::string fmt_p(const std::optional<double>& p);
std::string tail(const std::string& text, std::size_t max_lines);
std::string first_error(const mskb::CompileResult& b);
// The compiler's errors as the Debug agent sees them: file basename, line, message.
std::string compile_report(const mskb::CompileResult& b);
// The harness's verdict for the Debug agent. Held-out inputs stay undisclosed: their size, seed
// and element indices are withheld (only the kind and size of the error is told).
std::string harness_report(const mskb::ContenderResult& r);
std::string short_verdict(const mskb::ContenderResult& r);
std::string policy_report(const mskb::CompileResult& b);
std::string flag_whitelist();

class Job {
 public:
  Job(const Services& sv, const LoopConfig& cfg, const JobEnv& env, store::JobInfo info);
  JobResult run();

 private:
  // ---- journal (job.cpp)
  bool replaying() const { return cursor_ < steps_.size(); }
  // The stored step at the current position, or null when live work starts here.
  const store::Step* take(store::StepKind kind);
  std::int64_t next_seq() { return seq_++; }
  void check_interrupt();
  void check_live_limits();
  void say(const std::string& line) const;

  // ---- steps (job_steps.cpp)
  LlmOut llm_step(agents::Agent agent, int round, int attempt, const llm::ChatRequest& request);
  Cand candidate_step(const std::string& origin, int round, int attempt, const std::string& source,
                      const std::vector<std::string>& notes, const std::string& shipped_file = "");
  // `policy`: mskb's binary policy on the built object (every file but the task's vendor contender).
  mskb::CompileResult build_step(const Cand& c, const agents::BuildRecipe& recipe, bool allow_libraries, bool policy = true);
  // `contender`: baseline | vendor | candidate, or "<contender>/<mode>" for the acceptance
  // gate's evaluations (candidate/memcheck, candidate/racecheck, baseline/remeasure,
  // candidate/remeasure). `note` is appended to the row's message; `extra` joins its payload.
  void record_evaluation(const Cand* c, const std::string& contender, const mskb::ContenderResult& r, const Score& s,
                         const std::string& note = "", const nlohmann::json& extra = nlohmann::json::object());
  mskb::ContenderResult eval_step(const Cand& c, const std::string& contender, const std::string& library);
  // A candidate whose built object the binary policy refused: recorded like a screen rejection
  // (an evaluation with disposition rejected_static), the offending symbols in the message.
  void policy_step(const Cand& c, const mskb::CompileResult& b);
  // A candidate the screen rejected: recorded as an evaluation with disposition rejected_static.
  void screen_step(const Cand& c, const ScreenResult& sc);
  // What both record: a candidate evaluation with disposition rejected_static, `message` its
  // message and `failure` its result's failure detail.
  void rejected_static_step(const Cand& c, const std::string& message, const nlohmann::json& failure);
  ProfileSummary profile_step(int round);

  // ---- the acceptance gate (job_gate.cpp): a candidate that would replace the best
  struct Remeasured {
    bool ok = false;             // both re-measurements correct
    mskb::ContenderResult cand;  // the candidate's (when the baseline's was correct)
    std::string baseline_failure;
    Score score;  // the candidate against the re-measured baseline
    Verdict verdict;
  };
  // compute-sanitizer `tool` (memcheck | racecheck) on kSanitizerShapes. Anything but passed
  // fails the gate (sanitizer_error with the report's first line, or what the checks found).
  mskb::ContenderResult sanitize_step(const Cand& c, const std::string& library, const std::string& tool);
  // Before a candidate becomes the best: the timing part of the paper sweep again, in fresh
  // runner processes, the baseline and then the candidate back to back on the job's GPU (one
  // lease over both). The candidate's P is then against the re-measured baseline.
  Remeasured remeasure_step(const Cand& c, const std::string& library);
  // The gate a correct candidate whose first measurement beats the best must pass before it
  // replaces the best: memcheck and racecheck (unless --no-sanitize), then the re-measurement.
  // A failure the Debug agent can act on comes back as a Problem; otherwise `score` and `verdict`
  // are updated to the re-measured ones (verdict.accept false: not accepted, `why` says why).
  std::optional<Problem> acceptance_gate(const Cand& c, const std::string& library, Score& score, Verdict& verdict, std::string& why);

  // ---- the job (job.cpp) and its rounds (job_round.cpp)
  void measure_references();
  std::string best_summary() const;
  void run_round(int round);
  std::string round_profile(int round, std::string& profile_absent, std::string& cls);
  std::optional<agents::Plan> plan_step(int round, const std::string& profile_text, const std::string& profile_absent,
                                        std::vector<std::string>& log);
  struct Attempt;  // a round's answers of the Coder and Debug agents (job_round.cpp)
  bool judge_answer(Attempt& a, int round, std::vector<std::string>& log);
  mskb::CompileResult build_with_compiler_agent(const Cand& c, Attempt& a, int round, std::vector<std::string>& log);
  bool judge_built(Attempt& a, const Cand& c, const std::string& so, int round, std::vector<std::string>& log);
  void debug_step(Attempt& a, int round);
  void record_round(int round, const Attempt& a, const std::string& cls, const std::vector<std::string>& log);
  std::string round_table() const;
  JobResult finish(store::Status status, const std::string& reason, const std::string& message);

  const Services& sv_;
  const LoopConfig& cfg_;
  const JobEnv& env_;
  store::JobInfo info_;
  const mskb::TaskSpec& spec_;
  mskb::Precision p_;
  agents::TaskBrief brief_;
  std::string tag_, dir_;
  agents::BuildRecipe recipe_;

  std::vector<store::Step> steps_;
  std::size_t cursor_ = 0;
  std::int64_t seq_ = 0;

  mskb::ContenderResult baseline_, vendor_;
  Cand base_cand_;       // the baseline's file, for re-measurements
  std::string base_so_;  // and its build
  bool have_baseline_ = false, have_vendor_ = false;
  std::optional<double> vendor_p_;
  struct Best {
    std::optional<std::int64_t> candidate_id;
    std::string source, file, label, sha;
    bool trusted = true;
    int round = 0;
    Score score;
  } best_;
  std::vector<agents::RoundHistory> history_;
  std::vector<nlohmann::json> table_;
  int rounds_without_gain_ = 0;
  int candidates_ = 0;
  int answered_ = 0, compiled_ = 0;  // a dry run's candidates (Coder and Debug answers as files), those that built
  bool any_correct_ = false;
  std::optional<double> best_correct_p_;
  nlohmann::json awaiting_;  // exchange: the request the job stopped to wait for (null: none)
};

}  // namespace cudamaster::loop::detail
