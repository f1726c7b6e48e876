// One round of a job (job.hpp): profile the best, plan, code, then judge the answer and let the
// Debug agent fix what fails, up to the round's fix attempts.
#include <fmt/format.h>

#include "job.hpp"

using nlohmann::json;

namespace cudamaster::loop::detail {

using agents::Agent;
using agents::ProblemKind;
using store::StepKind;

// One round's answers, from the Coder's to the last Debug agent's, and how the round ends.
struct Job::Attempt {
  std::optional<agents::Plan> plan;
  agents::CodeAnswer answer;
  std::string who = "coder";  // "coder", then "debug N"
  int fixes = 0;
  std::vector<std::string> earlier;  // the Debug agent's earlier attempts
  Problem problem;                   // what failed in the last answer
  std::string outcome;
  std::optional<std::int64_t> candidate;
  std::optional<double> p;
  bool accepted = false;
  double best_before = 1.0;
  std::optional<Verdict> verdict;  // the last acceptance decision (the re-measured one when the gate ran)
};

// The profile of the current best for the agents ("" when there is none: `profile_absent` says why).
std::string Job::round_profile(int round, std::string& profile_absent, std::string& cls) {
  if (cfg_.dry_run) {
    profile_absent = "dry run: no profile (nothing runs on a GPU in a dry run, so there are no metrics): reason from the code.";
    return "";
  }
  if (cfg_.profile == profile::RenderMode::none) {
    profile_absent = "Profiling is off in this run (--profile none): reason from the timings and the code.";
    return "";
  }
  if (sv_.profiler == nullptr) {
    profile_absent = "No profiler is available in this run: reason from the timings and the code.";
    return "";
  }
  const ProfileSummary ps = profile_step(round);
  if (ps.ok) {
    cls = ps.cls;
    return ps.rendered;
  }
  profile_absent = "The profiler could not profile the current best (" + one_line(ps.message, 300) +
                   "): reason from the timings and the code.";
  return "";
}

std::optional<agents::Plan> Job::plan_step(int round, const std::string& profile_text, const std::string& profile_absent,
                                           std::vector<std::string>& log) {
  if (!cfg_.planner) return std::nullopt;
  agents::PlannerInput in;
  in.task = brief_;
  in.round = round;
  in.rounds = cfg_.rounds;
  in.best_label = best_.label;
  in.best_summary = best_summary();
  in.best_code = best_.source;
  in.performance = best_.score.rows;
  in.profile = profile_text;
  in.profile_absent = profile_absent;
  in.history = history_;
  const LlmOut out = llm_step(Agent::planner, round, 0, agents::planner_request(*sv_.prompts, in, cfg_.planner_settings));
  std::optional<agents::Plan> plan = agents::parse_plan(out.text);
  std::string line = "planner: " + one_line(plan->summary(), 120);
  if (!plan->problems.empty()) line += " [" + one_line(plan->problems.front(), 100) + "]";
  log.push_back(line);
  return plan;
}

// Builds the candidate; a toolchain failure goes to the Compiler agent (each answer a fix
// attempt) while it proposes a different recipe.
mskb::CompileResult Job::build_with_compiler_agent(const Cand& c, Attempt& a, int round, std::vector<std::string>& log) {
  mskb::CompileResult b = build_step(c, recipe_, cfg_.allow_libraries);
  while (!b.ok && !b.refused_policy && toolchain_failure(b) && a.fixes < cfg_.debug_loops) {
    ++a.fixes;
    agents::CompilerInput ci;
    ci.task = brief_;
    ci.recipe = recipe_;
    ci.log = tail(b.log.empty() ? b.error : b.log, 60);
    ci.code = c.source;
    ci.allowed_archs = cfg_.allowed_archs;
    ci.allowed_flags = flag_whitelist();
    const LlmOut co = llm_step(Agent::compiler, round, a.fixes, agents::compiler_request(*sv_.prompts, ci, cfg_.compiler_settings));
    const agents::CompilerAdvice adv = agents::parse_compiler_answer(co.text, recipe_, cfg_.allowed_archs);
    const bool changed = adv.recipe.arch != recipe_.arch || adv.recipe.flags != recipe_.flags || adv.recipe.lineinfo != recipe_.lineinfo;
    log.push_back(fmt::format("{}: compile_error ({}); compiler {}: {}", a.who, one_line(first_error(b), 100), a.fixes,
                              !adv.ok ? "unusable answer" : adv.code_problem ? "a code problem" : changed ? agents::describe(adv.recipe) : "no change"));
    if (!adv.ok || adv.code_problem || !changed) break;
    recipe_ = adv.recipe;
    b = build_step(c, recipe_, cfg_.allow_libraries);
  }
  return b;
}

// A built candidate: evaluated, scored, and (when it beats the best) through the acceptance gate.
// True when it is correct (the round ends: accepted or not); false with `a.problem` otherwise.
bool Job::judge_built(Attempt& a, const Cand& c, const std::string& so, int round, std::vector<std::string>& log) {
  const mskb::ContenderResult r = eval_step(c, mskb::to_string(mskb::ContenderKind::candidate), so);
  const Score s = score_result(r, baseline_, have_vendor_ ? &vendor_ : nullptr);
  Score fs = s;  // the first measurement, or the re-measured one once the gate ran
  Verdict v;
  std::string why;
  std::optional<Problem> gate;
  if (s.correct) {
    v = judge(s, best_.score, cfg_.min_gain, mskb::spread_model(), env_.gpu_name);
    if (v.accept) gate = acceptance_gate(c, so, fs, v, why);
  }
  if (!s.correct) {
    a.problem = {ProblemKind::harness, harness_report(r), short_verdict(r)};
    return false;
  }
  a.verdict = v;
  if (gate) {
    a.problem = *gate;
    return false;
  }
  any_correct_ = true;
  if (fs.p && (!best_correct_p_ || *fs.p > *best_correct_p_)) best_correct_p_ = fs.p;
  a.p = fs.p;
  log.push_back(fmt::format("{}: correct, {}", a.who, why.empty() ? v.reason : why));
  if (v.accept) {
    a.accepted = true;
    a.outcome = fmt::format("accepted: P {:.2f} -> {:.2f}", a.best_before, fs.p.value_or(0));
    best_.candidate_id = c.id;
    best_.source = c.source;
    best_.file = c.file;
    best_.trusted = false;
    best_.score = fs;
    best_.round = round;
    best_.sha = c.sha;
    best_.label = fmt::format("the candidate accepted in round {}", round);
  } else if (!why.empty()) {
    a.outcome = "rejected: correct, " + why;
  } else {
    a.outcome = fmt::format("rejected: correct but P {:.2f} does not beat the best {:.2f} by more than the {:.1f}% margin ({})",
                            s.p.value_or(0), a.best_before, 100.0 * v.margin, v.margin_source);
  }
  return true;
}

// The current answer: screened, built, judged. True when the round ends with a correct
// candidate; false with `a.problem` for the Debug agent.
bool Job::judge_answer(Attempt& a, int round, std::vector<std::string>& log) {
  if (!a.answer.ok) {
    a.problem = {ProblemKind::answer,
                 "The answer could not be used as a kernel file: " + a.answer.describe() +
                     (a.answer.code.empty() ? "\n(The file below is the current best kernel, which the plan starts from.)" : ""),
                 "unusable answer: " + one_line(a.answer.describe(), 140)};
    return false;
  }
  const Cand c = candidate_step(a.who == "coder" ? "coder" : "debug", round, a.fixes, a.answer.code, a.answer.notes);
  a.candidate = c.id;
  ++answered_;
  const ScreenResult sc = screen_source(c.source, {cfg_.allow_libraries});
  if (!sc.ok) {
    screen_step(c, sc);
    a.problem = {ProblemKind::screen, "The integrity screen rejected the file (disposition rejected_static):\n" + sc.describe(),
                 one_line(sc.describe(), 160)};
    return false;
  }
  const mskb::CompileResult b = build_with_compiler_agent(c, a, round, log);
  if (!b.ok && b.refused_policy) {
    policy_step(c, b);
    a.problem = {ProblemKind::screen, policy_report(b), one_line(b.error, 160)};
    return false;
  }
  if (!b.ok) {
    a.problem = {ProblemKind::compile_error, compile_report(b), "compile_error: " + one_line(first_error(b), 140)};
    return false;
  }
  if (cfg_.dry_run) {  // compiled: the round ends here, nothing is evaluated
    ++compiled_;
    a.outcome = "compiled: dry run, not evaluated (no P)";
    log.push_back(a.who + ": compiled (dry run: not evaluated)");
    return true;
  }
  return judge_built(a, c, b.so_path, round, log);
}

// The Debug agent's next answer to `a.problem`.
void Job::debug_step(Attempt& a, int round) {
  ++a.fixes;
  agents::DebugInput di;
  di.task = brief_;
  di.plan = a.plan;
  di.kind = a.problem.kind;
  di.problem = a.problem.text;
  di.code = a.answer.code.empty() ? best_.source : a.answer.code;
  di.attempt = a.fixes;
  di.attempts = cfg_.debug_loops;
  di.earlier = a.earlier;
  a.earlier.push_back(fmt::format("attempt {}: {}", a.fixes, a.problem.brief));
  const LlmOut dout = llm_step(Agent::debug, round, a.fixes, agents::debug_request(*sv_.prompts, di, cfg_.debug_settings));
  a.answer = agents::parse_debug_answer(dout.text, brief_.entry, dout.truncated);
  a.who = "debug " + std::to_string(a.fixes);
}

void Job::run_round(int round) {
  std::vector<std::string> log;
  Attempt a;
  a.best_before = best_.score.p.value_or(1.0);
  std::string profile_absent, cls;
  const std::string profile_text = round_profile(round, profile_absent, cls);
  a.plan = plan_step(round, profile_text, profile_absent, log);
  // Code.
  agents::CoderInput cin;
  cin.task = brief_;
  cin.round = round;
  cin.rounds = cfg_.rounds;
  cin.plan = a.plan;
  cin.best_label = best_.label;
  cin.best_summary = best_summary();
  cin.best_code = best_.source;
  cin.performance = best_.score.rows;
  cin.profile = profile_text;
  cin.history = history_;
  const LlmOut cout_ = llm_step(Agent::coder, round, 0, agents::coder_request(*sv_.prompts, cin, cfg_.coder_settings));
  a.answer = agents::parse_coder_answer(cout_.text, brief_.entry, cout_.truncated);
  // Debug loop: each failing answer goes back to the Debug agent until the fix attempts are spent.
  while (!judge_answer(a, round, log)) {
    log.push_back(a.who + ": " + a.problem.brief);
    say(fmt::format("round {}: {}: {}", round, a.who, a.problem.brief));
    if (a.fixes >= cfg_.debug_loops) {
      a.outcome = fmt::format("failed: {} still failing after {} fix attempt{}", a.problem.brief.substr(0, a.problem.brief.find(':')),
                              a.fixes, a.fixes == 1 ? "" : "s");
      break;
    }
    debug_step(a, round);
  }
  if (a.accepted) rounds_without_gain_ = 0;
  else ++rounds_without_gain_;
  record_round(round, a, cls, log);
}

// The round in the history, the round table and the run store.
void Job::record_round(int round, const Attempt& a, const std::string& cls, const std::vector<std::string>& log) {
  const std::string plan_line = a.plan ? a.plan->summary() : "";
  history_.push_back({round, plan_line, a.outcome, log});
  say(fmt::format("round {}: {}", round, a.outcome));

  const double best_after = best_.score.p.value_or(1.0);
  json payload = {{"round", round},  {"outcome", a.outcome}, {"accepted", a.accepted}, {"plan", plan_line},
                  {"steps", log},    {"class", cls},         {"attempts", a.fixes},    {"best_p", best_after}};
  if (a.verdict) payload["verdict"] = a.verdict->json();  // the margin used and why (score.hpp)
  table_.push_back({{"round", round},
                    {"outcome", a.outcome.substr(0, a.outcome.find(':'))},
                    {"attempts", a.fixes},
                    {"p", a.p ? json(*a.p) : json()},
                    {"best", best_after},
                    {"class", cls}});
  if (take(StepKind::round) != nullptr) return;
  store::RoundRow row;
  row.job_id = info_.id;
  row.seq = next_seq();
  row.round = round;
  row.outcome = a.outcome.substr(0, a.outcome.find(':'));
  row.candidate_id = a.candidate;
  row.p = a.p;
  row.best_p_before = a.best_before;
  row.best_p_after = best_after;
  row.attempts = a.fixes;
  row.payload = payload;
  sv_.store->record_round(row);
}

}  // namespace cudamaster::loop::detail
