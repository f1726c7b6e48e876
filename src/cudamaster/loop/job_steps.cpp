// One job's journaled steps (job.hpp): each takes its stored row when the job is resumed, or does
// the work and records it.
#include <filesystem>

#include <fmt/format.h>

#include "job.hpp"
#include "mskb/util/sha256.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace cudamaster::loop::detail {

using agents::Agent;
using agents::ProblemKind;
using store::StepKind;

LlmOut Job::llm_step(Agent agent, int round, int attempt, const llm::ChatRequest& request) {
  if (const store::Step* st = take(StepKind::llm_call)) {
    sv_.llm->skip_recorded(request);
    auto r = llm::chat_response_from_json(st->payload.value("response", json::object()));
    if (!r) throw std::runtime_error("run store: unreadable llm_call row " + std::to_string(st->row_id));
    return {r->text, r->finish_reason == llm::FinishReason::Length, r->usage.input_tokens, r->usage.output_tokens};
  }
  check_interrupt();
  // What the call belongs to: the exchange provider names its files after it (stable on resume:
  // the same run, task, precision and journal step ask the same question again).
  llm::ChatRequest req = request;
  const std::string agent_name = agents::to_string(agent);
  req.context.name = fmt::format("run{}-{}-{}-step{:04}-{}", env_.run_id, info_.task, info_.precision, seq_, agent_name);
  req.context.fields = {{"run", std::to_string(env_.run_id)}, {"job", std::to_string(info_.id)}, {"task", info_.task},
                        {"precision", info_.precision},       {"round", std::to_string(round)},  {"agent", agent_name},
                        {"attempt", std::to_string(attempt)}, {"step", std::to_string(seq_)}};
  if (sv_.llm->exchange())
    say(fmt::format("round {}: {}{}: request {}", round, agent_name, attempt > 0 ? " " + std::to_string(attempt) : "",
                    (fs::path(sv_.llm->endpoint()) / (req.context.name + ".request.json")).string()));
  auto res = sv_.llm->complete(req);
  store::LlmCallRow row;
  row.job_id = info_.id;
  row.round = round;
  row.agent = agents::to_string(agent);
  row.attempt = attempt;
  row.request = llm::to_json(request);
  if (!res) {
    const llm::LlmError& e = res.error();
    if (e.kind == llm::LlmErrorKind::AwaitingReply) {  // not a failure: the job waits for its answer
      awaiting_ = {{"request", e.pending}, {"agent", agent_name}, {"round", round}, {"attempt", attempt}, {"step", seq_}};
      throw JobStop{store::Status::stopped, "awaiting_reply", e.message};
    }
    row.provider = e.provider;
    row.endpoint = sv_.llm->endpoint();
    row.error = e.describe();
    row.http_attempts = e.attempts;
    row.payload = {{"error", llm::to_json(e)}};
    if (e.kind != llm::LlmErrorKind::BudgetExceeded) sv_.store->record_llm_call(row);  // not part of the journal
    switch (e.kind) {
      case llm::LlmErrorKind::BudgetExceeded: throw JobStop{store::Status::stopped, "budget", e.describe()};
      case llm::LlmErrorKind::ReplayExhausted: throw JobStop{store::Status::stopped, "replay_exhausted", e.describe()};
      default: throw JobStop{store::Status::stopped, "llm_error", e.describe()};
    }
  }
  const llm::ChatResponse& r = res.value();
  row.seq = next_seq();
  row.provider = r.provider;
  row.model = r.model;
  row.endpoint = r.endpoint.empty() ? sv_.llm->endpoint() : r.endpoint;
  row.response_text = r.text;
  row.finish_reason = llm::to_string(r.finish_reason);
  row.input_tokens = r.usage.input_tokens;
  row.cached_input_tokens = r.usage.cached_input_tokens;
  row.output_tokens = r.usage.output_tokens;
  row.reasoning_tokens = r.usage.reasoning_tokens;
  row.cost_usd = r.cost_usd;
  row.latency_ms = static_cast<double>(r.latency.count());
  row.http_attempts = r.attempts;
  row.replayed = r.replayed;
  row.raw_request = r.raw_request;
  row.raw_response = r.raw_response;
  row.payload = {{"response", llm::to_json(r, /*include_raw=*/false)}};
  sv_.store->record_llm_call(row);
  say(fmt::format("round {}: {}{} ({} in / {} out tokens{}{})", round, agents::to_string(agent),
                  attempt > 0 ? " " + std::to_string(attempt) : "", tokens(r.usage.input_tokens), tokens(r.usage.output_tokens),
                  r.cost_usd ? fmt::format(", ${:.4f}", *r.cost_usd) : "",
                  r.replayed ? ", replayed" : fmt::format(", {:.1f} s", static_cast<double>(r.latency.count()) / 1000.0)));
  return {r.text, r.finish_reason == llm::FinishReason::Length, r.usage.input_tokens, r.usage.output_tokens};
}

Cand Job::candidate_step(const std::string& origin, int round, int attempt, const std::string& source,
                    const std::vector<std::string>& notes, const std::string& shipped_file) {
  Cand c;
  if (const store::Step* st = take(StepKind::candidate)) {
    c.id = st->row_id;
    c.source = st->payload.value("source", source);
    c.sha = st->payload.value("sha256", "");
    c.file = shipped_file.empty() ? (fs::path(dir_) / fmt::format("c{}.cu", st->seq)).string() : shipped_file;
    if (shipped_file.empty()) write_text(c.file, c.source);
    return c;
  }
  check_interrupt();
  store::CandidateRow row;
  row.job_id = info_.id;
  row.seq = next_seq();
  row.round = round;
  row.origin = origin;
  row.attempt = attempt;
  row.source = source;
  row.sha256 = mskb::sha256_hex(source);
  c.source = source;
  c.sha = row.sha256;
  c.file = shipped_file.empty() ? (fs::path(dir_) / fmt::format("c{}.cu", row.seq)).string() : shipped_file;
  if (shipped_file.empty()) write_text(c.file, c.source);
  row.payload = {{"source", source}, {"sha256", row.sha256}, {"origin", origin}, {"file", c.file}, {"notes", notes}};
  c.id = sv_.store->record_candidate(row);
  ++candidates_;
  return c;
}

mskb::CompileResult Job::build_step(const Cand& c, const agents::BuildRecipe& recipe, bool allow_libraries, bool policy) {
  if (const store::Step* st = take(StepKind::build)) return compile_result_from_json(st->payload.value("result", json::object()));
  check_interrupt();
  const mskb::CompileResult b = sv_.builder->build({c.file, recipe, allow_libraries, policy});
  store::BuildRow row;
  row.job_id = info_.id;
  row.seq = next_seq();
  row.candidate_id = c.id;
  row.ok = b.ok;
  row.cache_hit = b.cache_hit;
  row.arch = recipe.arch;
  row.flags = recipe.flags;
  row.lineinfo = recipe.lineinfo;
  row.seconds = b.seconds;
  row.error = b.error;
  row.log = b.log;
  row.so_path = b.so_path;
  row.diagnostics = to_json(b)["diagnostics"];
  row.payload = {{"result", to_json(b)}, {"recipe", {{"arch", recipe.arch}, {"flags", recipe.flags}, {"lineinfo", recipe.lineinfo}}}};
  sv_.store->record_build(row);
  return b;
}

void Job::record_evaluation(const Cand* c, const std::string& contender, const mskb::ContenderResult& r, const Score& s,
                       const std::string& note, const json& extra) {
  store::EvaluationRow row;
  row.job_id = info_.id;
  row.seq = next_seq();
  if (c != nullptr) row.candidate_id = c->id;
  row.contender = contender;
  row.disposition = mskb::to_string(r.disposition);
  row.message = note.empty() ? r.message : r.message.empty() ? note : r.message + " (" + note + ")";
  row.checks_passed = r.checks_passed;
  row.checks_total = r.checks_total;
  row.p = s.p;
  row.geomean = s.geomean;
  row.vs_vendor = s.vs_vendor;
  row.noise = s.rel_noise;
  row.seconds = r.seconds;
  row.shapes = s.shapes;
  row.payload = {{"result", to_json(r)}};
  for (const auto& [k, v] : extra.items()) row.payload[k] = v;
  sv_.store->record_evaluation(row);
}

mskb::ContenderResult Job::eval_step(const Cand& c, const std::string& contender, const std::string& library) {
  if (const store::Step* st = take(StepKind::evaluation)) return contender_result_from_json(st->payload.value("result", json::object()));
  check_interrupt();
  mskb::ContenderResult r;
  {
    // A job keeps to one GPU: its baseline, vendor and candidates are compared on one device.
    exec::GpuLanes::Lease lease = sv_.gpu->acquire(static_cast<int>(info_.id));
    r = sv_.evaluator->evaluate({&spec_, p_, contender, c.file, library, lease.device()});
  }
  const Score s = mskb::contender_kind(contender) == mskb::ContenderKind::baseline ? score_result(r, r, nullptr)
                                          : score_result(r, have_baseline_ ? baseline_ : r, have_vendor_ ? &vendor_ : nullptr);
  record_evaluation(&c, contender, r, s);
  return r;
}

void Job::rejected_static_step(const Cand& c, const std::string& message, const json& failure) {
  if (take(StepKind::evaluation) != nullptr) return;
  mskb::ContenderResult r;
  r.task = spec_.name;
  r.precision = info_.precision;
  r.contender = mskb::to_string(mskb::ContenderKind::candidate);
  r.kernel = c.file;
  r.disposition = mskb::Disposition::rejected_static;
  r.message = message;
  r.failure = failure;
  record_evaluation(&c, r.contender, r, Score{});
}

void Job::policy_step(const Cand& c, const mskb::CompileResult& b) {
  rejected_static_step(c, b.error, {{"policy", mskb::policy_to_json(b)}});
}

void Job::screen_step(const Cand& c, const ScreenResult& sc) {
  json violations = json::array();
  for (const ScreenViolation& v : sc.violations)
    violations.push_back({{"rule", v.rule}, {"line", v.line}, {"excerpt", v.excerpt}, {"message", v.message}});
  rejected_static_step(c, sc.describe(), {{"screen", violations}});
}

ProfileSummary Job::profile_step(int round) {
  if (const store::Step* st = take(StepKind::profile)) return profile_summary_from_json(st->payload.value("summary", json::object()));
  check_interrupt();
  ProfileSummary s;
  {
    exec::GpuLanes::Lease lease = sv_.gpu->acquire(static_cast<int>(info_.id));
    s = sv_.profiler->profile({&spec_, p_, best_.file, best_.trusted, cfg_.allow_libraries, cfg_.profile, lease.device()});
  }
  store::ProfileRow row;
  row.job_id = info_.id;
  row.seq = next_seq();
  row.candidate_id = best_.candidate_id;
  row.round = round;
  row.mode = profile::to_string(cfg_.profile);
  row.ok = s.ok;
  row.cls = s.cls;
  row.confidence = s.confidence;
  row.source = s.source;
  row.rendered = s.rendered;
  row.message = s.message;
  row.payload = {{"summary", to_json(s)}};
  sv_.store->record_profile(row);
  say(s.ok ? fmt::format("round {}: profile of the best: {} (confidence {:.2f}, {})", round, s.cls, s.confidence, s.source)
           : fmt::format("round {}: profile failed: {}", round, one_line(s.message)));
  return s;
}

}  // namespace cudamaster::loop::detail
