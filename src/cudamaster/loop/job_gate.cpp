// The acceptance gate of one job (job.hpp): a correct candidate whose first measurement beats the
// best passes compute-sanitizer and a re-measurement beside the baseline before it replaces it.
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

mskb::ContenderResult Job::sanitize_step(const Cand& c, const std::string& library, const std::string& tool) {
  if (const store::Step* st = take(StepKind::evaluation)) return contender_result_from_json(st->payload.value("result", json::object()));
  check_interrupt();
  mskb::ContenderResult r;
  {
    exec::GpuLanes::Lease lease = sv_.gpu->acquire(static_cast<int>(info_.id));
    r = sv_.evaluator->evaluate({&spec_, p_, mskb::to_string(mskb::ContenderKind::candidate), c.file, library, lease.device(), tool});
  }
  const mskb::TaskSpec subset = sanitizer_subset(spec_);
  json shapes = json::array();
  for (const mskb::Sweep sweep : {mskb::Sweep::paper, mskb::Sweep::heldout})
    for (const mskb::Shape& sh : subset.sweep(mskb::to_string(sweep))) shapes.push_back(mskb::to_string(sweep) + " " + sh.str());
  record_evaluation(&c, "candidate/" + tool, r, Score{}, fmt::format("compute-sanitizer {} on {}", tool, kSanitizerShapes),
                    {{"mode", tool}, {"sanitizer_shapes", kSanitizerShapes}, {"shapes", shapes}});
  say(fmt::format("compute-sanitizer {}: {}", tool, r.disposition == mskb::Disposition::passed ? mskb::to_string(r.disposition) : one_line(r.message)));
  return r;
}

Job::Remeasured Job::remeasure_step(const Cand& c, const std::string& library) {
  Remeasured m;
  std::optional<exec::GpuLanes::Lease> lease;
  mskb::ContenderResult base;
  if (const store::Step* st = take(StepKind::evaluation)) {
    base = contender_result_from_json(st->payload.value("result", json::object()));
  } else {
    check_interrupt();
    lease.emplace(sv_.gpu->acquire(static_cast<int>(info_.id)));
    base = sv_.evaluator->evaluate({&spec_, p_, mskb::to_string(mskb::ContenderKind::baseline), base_cand_.file, base_so_, lease->device(), kEvalRemeasure});
    record_evaluation(&base_cand_, "baseline/remeasure", base, score_result(base, base, nullptr),
                      fmt::format("re-measured beside candidate {}", c.id), {{"mode", kEvalRemeasure}, {"beside", c.id}});
  }
  if (!mskb::is_correct(base.disposition)) {
    m.baseline_failure = base.message.empty() ? mskb::to_string(base.disposition) : base.message;
    return m;
  }
  auto judged = [&](const mskb::ContenderResult& r) {
    m.score = score_result(r, base, have_vendor_ ? &vendor_ : nullptr);
    m.verdict = judge(m.score, best_.score, cfg_.min_gain, mskb::spread_model(), env_.gpu_name);
  };
  if (const store::Step* st = take(StepKind::evaluation)) {
    m.cand = contender_result_from_json(st->payload.value("result", json::object()));
    judged(m.cand);
  } else {
    check_interrupt();
    if (!lease) lease.emplace(sv_.gpu->acquire(static_cast<int>(info_.id)));
    m.cand = sv_.evaluator->evaluate({&spec_, p_, mskb::to_string(mskb::ContenderKind::candidate), c.file, library, lease->device(), kEvalRemeasure});
    lease.reset();
    judged(m.cand);
    const std::string note =
        !m.score.correct ? "re-measurement beside the baseline: not correct, not accepted"
        : m.verdict.accept
            ? "re-measured beside the baseline: " + m.verdict.reason + ", accepted with this P"
            : "re-measured beside the baseline: " + m.verdict.reason + ", no longer beats the best by more than the margin: not accepted";
    record_evaluation(&c, "candidate/remeasure", m.cand, m.score, note,
                      {{"mode", kEvalRemeasure}, {"accepted", m.verdict.accept}, {"verdict", m.verdict.json()}});
  }
  m.ok = m.score.correct;
  return m;
}

std::optional<Problem> Job::acceptance_gate(const Cand& c, const std::string& library, Score& score, Verdict& verdict, std::string& why) {
  if (cfg_.sanitize) {
    for (const char* tool : {kEvalMemcheck, kEvalRacecheck}) {
      const mskb::ContenderResult r = sanitize_step(c, library, tool);
      if (r.disposition == mskb::Disposition::passed) continue;
      const std::string head = fmt::format(
          "The kernel's results were correct, but it cannot be accepted: under compute-sanitizer {} (run on {}) the "
          "harness reported a problem. Fix the memory access or race it names:\n",
          tool, kSanitizerShapes);
      return Problem{ProblemKind::harness, head + harness_report(r), std::string(tool) + ": " + short_verdict(r)};
    }
  }
  const double first_p = score.p.value_or(0);
  const Remeasured m = remeasure_step(c, library);
  if (!m.baseline_failure.empty()) {
    verdict.accept = false;
    why = "the baseline's re-measurement failed (" + one_line(m.baseline_failure, 120) + "): not accepted";
    return std::nullopt;
  }
  if (!m.ok)
    return Problem{ProblemKind::harness,
                   "The kernel passed its first evaluation, but a re-measurement in a fresh runner process (the timed paper "
                   "shapes, checked and timed again) failed:\n" + harness_report(m.cand),
                   "re-measurement: " + short_verdict(m.cand)};
  score = m.score;
  verdict = m.verdict;
  if (!verdict.accept)
    why = fmt::format("P {:.2f} at first, but re-measured beside the baseline in a fresh process {}: no longer beats the best "
                      "by more than the margin",
                      first_p, verdict.reason);
  return std::nullopt;
}

}  // namespace cudamaster::loop::detail
