// The run store's journal: one row per step a job took (LLM calls, candidates, builds,
// evaluations with their shapes, profiles, rounds), each written in its own transaction, and the
// job's steps read back in seq order.
#include <utility>

#include "cudamaster/store/store.hpp"
#include "sqlite_db.hpp"

namespace cudamaster::store {

const char* to_string(StepKind k) {
  switch (k) {
    case StepKind::llm_call: return "llm_calls";
    case StepKind::candidate: return "candidates";
    case StepKind::build: return "builds";
    case StepKind::evaluation: return "evaluations";
    case StepKind::profile: return "profiles";
    case StepKind::round: return "rounds";
  }
  return "?";
}

std::int64_t RunStore::record_llm_call(const LlmCallRow& r) {
  std::lock_guard<std::mutex> lock(mutex_);
  return impl_->transaction([&] {
    Impl::Stmt s(*impl_,
                 "INSERT INTO llm_calls(job_id, seq, created_at, round, agent, attempt, provider, model, endpoint, "
                 "request, response, finish_reason, input_tokens, cached_input_tokens, output_tokens, reasoning_tokens, "
                 "cost_usd, latency_ms, http_attempts, replayed, raw_request, raw_response, error, payload) "
                 "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    s.bind(r.job_id).bind(r.seq).bind(now_iso8601()).bind(r.round).bind(r.agent).bind(r.attempt).bind(r.provider)
        .bind(r.model).bind(r.endpoint).bind(r.request).bind(r.response_text).bind(r.finish_reason)
        .bind(r.input_tokens).bind(r.cached_input_tokens).bind(r.output_tokens).bind(r.reasoning_tokens)
        .bind(r.cost_usd).bind(r.latency_ms).bind(r.http_attempts).bind(r.replayed).bind(r.raw_request)
        .bind(r.raw_response).bind(r.error).bind(r.payload).run();
    return impl_->last_id();
  });
}

std::int64_t RunStore::record_candidate(const CandidateRow& r) {
  std::lock_guard<std::mutex> lock(mutex_);
  return impl_->transaction([&] {
    Impl::Stmt s(*impl_,
                 "INSERT INTO candidates(job_id, seq, created_at, round, origin, attempt, source, sha256, payload) "
                 "VALUES(?,?,?,?,?,?,?,?,?)");
    s.bind(r.job_id).bind(r.seq).bind(now_iso8601()).bind(r.round).bind(r.origin).bind(r.attempt).bind(r.source)
        .bind(r.sha256).bind(r.payload).run();
    return impl_->last_id();
  });
}

std::int64_t RunStore::record_build(const BuildRow& r) {
  std::lock_guard<std::mutex> lock(mutex_);
  return impl_->transaction([&] {
    Impl::Stmt s(*impl_,
                 "INSERT INTO builds(job_id, seq, created_at, candidate_id, ok, cache_hit, arch, flags, lineinfo, seconds, "
                 "error, log, so_path, diagnostics, payload) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    s.bind(r.job_id).bind(r.seq).bind(now_iso8601()).bind(r.candidate_id).bind(r.ok).bind(r.cache_hit).bind(r.arch)
        .bind(r.flags).bind(r.lineinfo).bind(r.seconds).bind(r.error).bind(r.log).bind(r.so_path).bind(r.diagnostics)
        .bind(r.payload).run();
    return impl_->last_id();
  });
}

std::int64_t RunStore::record_evaluation(const EvaluationRow& r) {
  std::lock_guard<std::mutex> lock(mutex_);
  return impl_->transaction([&] {
    std::int64_t id = 0;
    {
      Impl::Stmt s(*impl_,
                   "INSERT INTO evaluations(job_id, seq, created_at, candidate_id, contender, disposition, message, "
                   "checks_passed, checks_total, p, geomean, vs_vendor, noise, seconds, payload) "
                   "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
      s.bind(r.job_id).bind(r.seq).bind(now_iso8601()).bind(r.candidate_id).bind(r.contender).bind(r.disposition)
          .bind(r.message).bind(r.checks_passed).bind(r.checks_total).bind(r.p).bind(r.geomean).bind(r.vs_vendor)
          .bind(r.noise).bind(r.seconds).bind(r.payload).run();
      id = impl_->last_id();
    }
    for (const ShapeRow& sh : r.shapes) {
      Impl::Stmt s(*impl_,
                   "INSERT INTO eval_shapes(evaluation_id, job_id, sweep, shape, complexity, median_us, min_us, max_us, n, "
                   "noise, speedup, vs_vendor, sol_fraction, disposition) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
      s.bind(id).bind(r.job_id).bind(sh.sweep).bind(sh.shape).bind(static_cast<std::int64_t>(sh.complexity))
          .bind(sh.median_us).bind(sh.min_us).bind(sh.max_us).bind(sh.n).bind(sh.noise).bind(sh.speedup)
          .bind(sh.vs_vendor).bind(sh.sol_fraction).bind(sh.disposition).run();
    }
    return id;
  });
}

std::int64_t RunStore::record_profile(const ProfileRow& r) {
  std::lock_guard<std::mutex> lock(mutex_);
  return impl_->transaction([&] {
    Impl::Stmt s(*impl_,
                 "INSERT INTO profiles(job_id, seq, created_at, candidate_id, round, mode, ok, class, confidence, source, "
                 "rendered, message, payload) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)");
    s.bind(r.job_id).bind(r.seq).bind(now_iso8601()).bind(r.candidate_id).bind(r.round).bind(r.mode).bind(r.ok)
        .bind(r.cls).bind(r.confidence).bind(r.source).bind(r.rendered).bind(r.message).bind(r.payload).run();
    return impl_->last_id();
  });
}

std::int64_t RunStore::record_round(const RoundRow& r) {
  std::lock_guard<std::mutex> lock(mutex_);
  return impl_->transaction([&] {
    Impl::Stmt s(*impl_,
                 "INSERT INTO rounds(job_id, seq, created_at, round, outcome, candidate_id, p, best_p_before, best_p_after, "
                 "attempts, payload) VALUES(?,?,?,?,?,?,?,?,?,?,?)");
    s.bind(r.job_id).bind(r.seq).bind(now_iso8601()).bind(r.round).bind(r.outcome).bind(r.candidate_id).bind(r.p)
        .bind(r.best_p_before).bind(r.best_p_after).bind(r.attempts).bind(r.payload).run();
    return impl_->last_id();
  });
}

std::vector<Step> RunStore::journal(std::int64_t job_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  static const char* const kSql =
      "SELECT 0, seq, id, payload FROM llm_calls WHERE job_id = ?1 AND seq IS NOT NULL "
      "UNION ALL SELECT 1, seq, id, payload FROM candidates WHERE job_id = ?1 "
      "UNION ALL SELECT 2, seq, id, payload FROM builds WHERE job_id = ?1 "
      "UNION ALL SELECT 3, seq, id, payload FROM evaluations WHERE job_id = ?1 "
      "UNION ALL SELECT 4, seq, id, payload FROM profiles WHERE job_id = ?1 "
      "UNION ALL SELECT 5, seq, id, payload FROM rounds WHERE job_id = ?1 ORDER BY 2";
  Impl::Stmt s(*impl_, kSql);
  s.bind(job_id);
  std::vector<Step> out;
  while (s.step()) {
    Step st;
    st.kind = static_cast<StepKind>(s.i64(0));
    st.seq = s.i64(1);
    st.row_id = s.i64(2);
    st.payload = s.json_col(3);
    out.push_back(std::move(st));
  }
  return out;
}

}  // namespace cudamaster::store
