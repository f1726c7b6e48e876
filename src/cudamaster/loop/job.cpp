// One job: a task in one precision, over R rounds (see optimizer.hpp for the contract).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "cudamaster/loop/optimizer.hpp"
#include "cudamaster/loop/score.hpp"
#include "cudamaster/loop/screen.hpp"
#include "mskb/util/files.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/util/sha256.hpp"
#include "mskb/harness/suite.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace cudamaster::loop {

namespace {

using agents::Agent;
using agents::ProblemKind;
using store::StepKind;

// Ends a job from anywhere inside it.
struct JobStop {
  std::string status, reason, message;
};

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

void write_text(const std::string& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (fs::exists(path, ec)) {
    try {
      if (read_text(path) == text) return;
    } catch (const std::exception&) {
    }
  }
  mskb::write_file_atomic(path, text);
}

std::string tokens(std::int64_t n) {
  if (n < 1000) return std::to_string(n);
  return fmt::format("{:.1f}k", static_cast<double>(n) / 1000.0);
}

std::string one_line(std::string s, std::size_t max = 160) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s.size() > max ? s.substr(0, max - 3) + "..." : s;
}

std::string fmt_p(const std::optional<double>& p) { return p ? fmt::format("{:.2f}", *p) : std::string("-"); }

std::string first_error(const mskb::CompileResult& b) {
  for (const mskb::Diagnostic& d : b.diagnostics)
    if (d.severity == "error")
      return d.line > 0 ? fmt::format("{}:{}: {}", fs::path(d.file).filename().string(), d.line, d.message) : d.message;
  return b.error;
}

std::string tail(const std::string& text, std::size_t max_lines) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::string out;
  for (std::size_t i = lines.size() > max_lines ? lines.size() - max_lines : 0; i < lines.size(); ++i) out += lines[i] + "\n";
  return out;
}

// The compiler's errors as the Debug agent sees them: file basename, line, message.
std::string compile_report(const mskb::CompileResult& b) {
  std::string out;
  int n = 0;
  for (const mskb::Diagnostic& d : b.diagnostics) {
    if (d.severity != "error") continue;
    if (++n > 15) break;
    out += d.line > 0 ? fmt::format("{}:{}: error: {}\n", fs::path(d.file).filename().string(), d.line, d.message)
                      : fmt::format("error: {}\n", d.message);
  }
  if (out.empty()) out = b.error + "\n\n" + tail(b.log, 30);
  return "The build failed. Compiler errors:\n" + out;
}

std::string num(const json& v) {
  if (v.is_number_float()) return fmt::format("{:.6g}", v.get<double>());
  if (v.is_number()) return v.dump();
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// The harness's verdict for the Debug agent. Held-out inputs stay undisclosed: their size, seed
// and element indices are withheld (only the kind and size of the error is told).
std::string harness_report(const mskb::ContenderResult& r) {
  std::string out = "Disposition: " + r.disposition + "\n";
  const json& f = r.failure;
  const bool heldout = f.is_object() && f.value("sweep", "") == "heldout";
  const json detail = f.is_object() && f.contains("detail") ? f["detail"] : json();
  if (heldout) {
    out += "Where: a held-out correctness input (its size and seed are not disclosed; held-out inputs include odd and "
           "non-power-of-two sizes, other widths and skewed data, all within the task statement)\n";
    if (detail.is_object()) {
      const double checked = detail.value("checked", 0.0);
      const double bad = detail.value("mismatches", 0.0);
      if (checked > 0) out += fmt::format("What: {:.3g}% of the elements of '{}' are wrong", 100.0 * bad / checked, detail.value("param", ""));
      if (detail.value("unwritten", 0) > 0) out += " (some were never written)";
      if (detail.value("nans", 0) > 0) out += " (some are NaN)";
      out += "\n";
      if (detail.contains("max_err_over_tol")) out += "Largest error: " + num(detail["max_err_over_tol"]) + " times the tolerance\n";
      if (detail.contains("first_mismatches")) {
        out += "First mismatches (got vs expected):";
        for (const json& m : detail["first_mismatches"]) out += " " + num(m.value("got", json())) + " vs " + num(m.value("want", json())) + ";";
        out += "\n";
      }
      if (detail.contains("message") && checked <= 0) out += "What: " + detail.value("message", "") + "\n";
    } else if (!f.is_null()) {
      out += "What: " + r.disposition + "\n";
    }
  } else {
    out += "Message: " + r.message + "\n";
    if (f.is_object() && f.contains("shape_str"))
      out += fmt::format("Where: {} size {}, seed {}\n", f.value("sweep", ""), f.value("shape_str", ""), f.value("seed", 0));
    if (detail.is_object() && detail.contains("first_mismatches")) {
      out += fmt::format("Tolerance: |out - ref| <= {} + {} * |ref|; largest error {} ({} times the tolerance)\n",
                         num(detail.value("atol", json(0))), num(detail.value("rtol", json(0))),
                         num(detail.value("max_abs_err", json(0))), num(detail.value("max_err_over_tol", json(0))));
      out += "First mismatches (index: got vs expected):";
      for (const json& m : detail["first_mismatches"])
        out += " " + num(m.value("index", json(0))) + ": " + num(m.value("got", json())) + " vs " + num(m.value("want", json())) + ";";
      out += "\n";
    }
  }
  out += fmt::format("Checks passed before the failure: {} of {}\n", r.checks_passed, r.checks_total);
  const bool crashed = r.disposition == mskb::disposition::crashed || r.disposition == mskb::disposition::launch_error ||
                       r.disposition == mskb::disposition::timeout;
  if (crashed && !r.log_tail.empty()) out += "Last lines of the runner's log:\n" + tail(r.log_tail, 12);
  return out;
}

std::string short_verdict(const mskb::ContenderResult& r) {
  const json& f = r.failure;
  if (f.is_object() && f.value("sweep", "") == "heldout") return r.disposition + " on a held-out input";
  return one_line(r.message.empty() ? r.disposition : r.message, 140);
}

std::string flag_whitelist() {
  return "-O0..-O3, -use_fast_math, -lineinfo, -Xptxas=-v, -Xptxas=-O0..3, --extra-device-vectorization, "
         "-maxrregcount=N, -ftz=true|false, -prec-div=true|false, -prec-sqrt=true|false, -fmad=true|false, "
         "--expt-relaxed-constexpr, --expt-extended-lambda, -DNAME[=VALUE], -Xptxas=-dlcm=ca|cg, --restrict, -std=c++17|c++20";
}

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
  ProblemKind kind = ProblemKind::harness;
  std::string text;   // for the Debug agent
  std::string brief;  // for history and progress
};

class Job {
 public:
  Job(const Services& sv, const LoopConfig& cfg, const JobEnv& env, store::JobInfo info)
      : sv_(sv), cfg_(cfg), env_(env), info_(std::move(info)), spec_(mskb::get_task(info_.task)),
        p_(mskb::parse_precision(info_.precision)) {
    brief_ = agents::make_task_brief(spec_, p_, cfg_.allow_libraries, env_.gpu_name);
    tag_ = fmt::format("[{} {}]", info_.task, info_.precision);
    dir_ = (fs::path(env_.work_dir) / (info_.task + "_" + info_.precision)).string();
    recipe_ = cfg_.recipe;
  }

  JobResult run() {
    try {
      steps_ = sv_.store->journal(info_.id);
      sv_.store->set_job_status(info_.id, "running", "", nullptr);
      if (!steps_.empty()) say(fmt::format("resuming: {} recorded steps are replayed from the store", steps_.size()));
      measure_references();
      for (int round = 1; round <= cfg_.rounds; ++round) {
        if (cfg_.patience > 0 && rounds_without_gain_ >= cfg_.patience)
          return finish("finished", "patience",
                        fmt::format("{} rounds without gain (--patience {})", rounds_without_gain_, cfg_.patience));
        if (!replaying()) check_live_limits();
        run_round(round);
        if (env_.heartbeat) env_.heartbeat();
      }
      return finish("finished", "rounds", fmt::format("all {} rounds done", cfg_.rounds));
    } catch (const JobStop& s) {
      return finish(s.status, s.reason, s.message);
    } catch (const std::exception& e) {
      return finish("failed", "error", e.what());
    }
  }

 private:
  // ---- journal

  bool replaying() const { return cursor_ < steps_.size(); }

  // The stored step at the current position, or null when live work starts here.
  const store::Step* take(StepKind kind) {
    if (cursor_ >= steps_.size()) return nullptr;
    const store::Step& st = steps_[cursor_];
    if (st.seq != seq_)
      throw std::runtime_error(fmt::format("run store: job {} has no step {} but a step {} (the journal has a gap)", info_.id, seq_, st.seq));
    if (st.kind != kind)
      throw std::runtime_error(fmt::format("run store: job {} step {} is a {} row but the loop now takes a {} step; "
                                           "the run cannot be resumed with this version of cudamaster or its prompts",
                                           info_.id, seq_, store::to_string(st.kind), store::to_string(kind)));
    ++cursor_;
    ++seq_;
    return &st;
  }
  std::int64_t next_seq() { return seq_++; }

  void check_interrupt() {
    if (env_.interrupted != nullptr && env_.interrupted->load()) throw JobStop{"stopped", "interrupted", "interrupted"};
  }

  void check_live_limits() {
    check_interrupt();
    const auto& budget = sv_.llm->budget();
    if (budget && budget->limit_usd() && budget->spent_usd() >= *budget->limit_usd())
      throw JobStop{"stopped", "budget", fmt::format("the run's budget of ${:.2f} is spent", *budget->limit_usd())};
    if (env_.deadline && std::chrono::steady_clock::now() >= *env_.deadline)
      throw JobStop{"stopped", "wall_clock", "the wall-clock limit (--max-minutes) is reached"};
  }

  void say(const std::string& line) const {
    if (env_.progress) env_.progress(tag_ + " " + line);
  }

  // ---- steps

  LlmOut llm_step(Agent agent, int round, int attempt, const llm::ChatRequest& request) {
    if (const store::Step* st = take(StepKind::llm_call)) {
      sv_.llm->skip_recorded(request);
      auto r = llm::chat_response_from_json(st->payload.value("response", json::object()));
      if (!r) throw std::runtime_error("run store: unreadable llm_call row " + std::to_string(st->row_id));
      return {r->text, r->finish_reason == llm::FinishReason::Length, r->usage.input_tokens, r->usage.output_tokens};
    }
    check_interrupt();
    auto res = sv_.llm->complete(request);
    store::LlmCallRow row;
    row.job_id = info_.id;
    row.round = round;
    row.agent = agents::to_string(agent);
    row.attempt = attempt;
    row.request = llm::to_json(request);
    if (!res) {
      const llm::LlmError& e = res.error();
      row.provider = e.provider;
      row.endpoint = sv_.llm->endpoint();
      row.error = e.describe();
      row.http_attempts = e.attempts;
      row.payload = {{"error", llm::to_json(e)}};
      if (e.kind != llm::LlmErrorKind::BudgetExceeded) sv_.store->record_llm_call(row);  // not part of the journal
      switch (e.kind) {
        case llm::LlmErrorKind::BudgetExceeded: throw JobStop{"stopped", "budget", e.describe()};
        case llm::LlmErrorKind::ReplayExhausted: throw JobStop{"stopped", "replay_exhausted", e.describe()};
        default: throw JobStop{"stopped", "llm_error", e.describe()};
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

  Cand candidate_step(const std::string& origin, int round, int attempt, const std::string& source,
                      const std::vector<std::string>& notes, const std::string& shipped_file = "") {
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

  // `policy`: mskb's binary policy on the built object (every file but the task's vendor contender).
  mskb::CompileResult build_step(const Cand& c, const agents::BuildRecipe& recipe, bool allow_libraries, bool policy = true) {
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

  // `contender`: baseline | vendor | candidate, or "<contender>/<mode>" for the acceptance
  // gate's evaluations (candidate/memcheck, candidate/racecheck, baseline/remeasure,
  // candidate/remeasure). `note` is appended to the row's message; `extra` joins its payload.
  void record_evaluation(const Cand* c, const std::string& contender, const mskb::ContenderResult& r, const Score& s,
                         const std::string& note = "", const json& extra = json::object()) {
    store::EvaluationRow row;
    row.job_id = info_.id;
    row.seq = next_seq();
    if (c != nullptr) row.candidate_id = c->id;
    row.contender = contender;
    row.disposition = r.disposition;
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

  mskb::ContenderResult eval_step(const Cand& c, const std::string& contender, const std::string& library) {
    if (const store::Step* st = take(StepKind::evaluation)) return contender_result_from_json(st->payload.value("result", json::object()));
    check_interrupt();
    mskb::ContenderResult r;
    {
      // A job keeps to one GPU: its baseline, vendor and candidates are compared on one device.
      exec::GpuLanes::Lease lease = sv_.gpu->acquire(static_cast<int>(info_.id));
      r = sv_.evaluator->evaluate({&spec_, p_, contender, c.file, library, lease.device()});
    }
    const Score s = contender == "baseline" ? score_result(r, r, nullptr)
                                            : score_result(r, have_baseline_ ? baseline_ : r, have_vendor_ ? &vendor_ : nullptr);
    record_evaluation(&c, contender, r, s);
    return r;
  }

  // ---- the acceptance gate (a candidate that would replace the best)

  // compute-sanitizer `tool` (memcheck | racecheck) on kSanitizerShapes. Anything but passed
  // fails the gate (sanitizer_error with the report's first line, or what the checks found).
  mskb::ContenderResult sanitize_step(const Cand& c, const std::string& library, const std::string& tool) {
    if (const store::Step* st = take(StepKind::evaluation)) return contender_result_from_json(st->payload.value("result", json::object()));
    check_interrupt();
    mskb::ContenderResult r;
    {
      exec::GpuLanes::Lease lease = sv_.gpu->acquire(static_cast<int>(info_.id));
      r = sv_.evaluator->evaluate({&spec_, p_, "candidate", c.file, library, lease.device(), tool});
    }
    const mskb::TaskSpec subset = sanitizer_subset(spec_);
    json shapes = json::array();
    for (const char* sweep : {"paper", "heldout"})
      for (const mskb::Shape& sh : subset.sweep(sweep)) shapes.push_back(std::string(sweep) + " " + sh.str());
    record_evaluation(&c, "candidate/" + tool, r, Score{}, fmt::format("compute-sanitizer {} on {}", tool, kSanitizerShapes),
                      {{"mode", tool}, {"sanitizer_shapes", kSanitizerShapes}, {"shapes", shapes}});
    say(fmt::format("compute-sanitizer {}: {}", tool, r.disposition == mskb::disposition::passed ? "passed" : one_line(r.message)));
    return r;
  }

  struct Remeasured {
    bool ok = false;            // both re-measurements correct
    mskb::ContenderResult cand;  // the candidate's (when the baseline's was correct)
    std::string baseline_failure;
    Score score;                 // the candidate against the re-measured baseline
    Verdict verdict;
  };

  // Before a candidate becomes the best: the timing part of the paper sweep again, in fresh
  // runner processes, the baseline and then the candidate back to back on the job's GPU (one
  // lease over both). The candidate's P is then against the re-measured baseline.
  Remeasured remeasure_step(const Cand& c, const std::string& library) {
    Remeasured m;
    std::optional<exec::GpuLanes::Lease> lease;
    mskb::ContenderResult base;
    if (const store::Step* st = take(StepKind::evaluation)) {
      base = contender_result_from_json(st->payload.value("result", json::object()));
    } else {
      check_interrupt();
      lease.emplace(sv_.gpu->acquire(static_cast<int>(info_.id)));
      base = sv_.evaluator->evaluate({&spec_, p_, "baseline", base_cand_.file, base_so_, lease->device(), kEvalRemeasure});
      record_evaluation(&base_cand_, "baseline/remeasure", base, score_result(base, base, nullptr),
                        fmt::format("re-measured beside candidate {}", c.id), {{"mode", kEvalRemeasure}, {"beside", c.id}});
    }
    if (!mskb::is_correct(base.disposition)) {
      m.baseline_failure = base.message.empty() ? base.disposition : base.message;
      return m;
    }
    auto judged = [&](const mskb::ContenderResult& r) {
      m.score = score_result(r, base, have_vendor_ ? &vendor_ : nullptr);
      m.verdict = judge(m.score, best_.score, cfg_.min_gain);
    };
    if (const store::Step* st = take(StepKind::evaluation)) {
      m.cand = contender_result_from_json(st->payload.value("result", json::object()));
      judged(m.cand);
    } else {
      check_interrupt();
      if (!lease) lease.emplace(sv_.gpu->acquire(static_cast<int>(info_.id)));
      m.cand = sv_.evaluator->evaluate({&spec_, p_, "candidate", c.file, library, lease->device(), kEvalRemeasure});
      lease.reset();
      judged(m.cand);
      const std::string note =
          !m.score.correct ? "re-measurement beside the baseline: not correct, not accepted"
          : m.verdict.accept
              ? "re-measured beside the baseline: " + m.verdict.reason + ", accepted with this P"
              : "re-measured beside the baseline: " + m.verdict.reason + ", no longer beats the best by more than the noise: not accepted";
      record_evaluation(&c, "candidate/remeasure", m.cand, m.score, note, {{"mode", kEvalRemeasure}, {"accepted", m.verdict.accept}});
    }
    m.ok = m.score.correct;
    return m;
  }

  // The gate a correct candidate whose first measurement beats the best must pass before it
  // replaces the best: memcheck and racecheck (unless --no-sanitize), then the re-measurement.
  // A failure the Debug agent can act on comes back as a Problem; otherwise `score` and `verdict`
  // are updated to the re-measured ones (verdict.accept false: not accepted, `why` says why).
  std::optional<Problem> acceptance_gate(const Cand& c, const std::string& library, Score& score, Verdict& verdict, std::string& why) {
    if (cfg_.sanitize) {
      for (const char* tool : {kEvalMemcheck, kEvalRacecheck}) {
        const mskb::ContenderResult r = sanitize_step(c, library, tool);
        if (r.disposition == mskb::disposition::passed) continue;
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
                        "by more than the noise",
                        first_p, verdict.reason);
    return std::nullopt;
  }

  // A candidate whose built object the binary policy refused: recorded like a screen rejection
  // (an evaluation with disposition rejected_static), the offending symbols in the message.
  void policy_step(const Cand& c, const mskb::CompileResult& b) {
    if (take(StepKind::evaluation) != nullptr) return;
    mskb::ContenderResult r;
    r.task = spec_.name;
    r.precision = info_.precision;
    r.contender = "candidate";
    r.kernel = c.file;
    r.disposition = mskb::disposition::rejected_static;
    r.message = b.error;
    r.failure = {{"policy", mskb::policy_to_json(b)}};
    record_evaluation(&c, "candidate", r, Score{});
  }

  static std::string policy_report(const mskb::CompileResult& b) {
    std::string out = "The binary policy refused the built object (disposition rejected_static). It reads the compiled "
                      "shared object, so macros or token pasting do not change its verdict:\n";
    for (const auto& v : b.policy_violations) out += "  - " + v.describe() + "\n";
    out += "Use the CUDA runtime on the caller's (default) stream and plain C/C++ only: no streams, graphs, host callbacks "
           "or threads, no files, environment, dynamic loading, driver API or raw system calls.";
    return out;
  }

  // A candidate the screen rejected: recorded as an evaluation with disposition rejected_static.
  void screen_step(const Cand& c, const ScreenResult& sc) {
    if (take(StepKind::evaluation) != nullptr) return;
    mskb::ContenderResult r;
    r.task = spec_.name;
    r.precision = info_.precision;
    r.contender = "candidate";
    r.kernel = c.file;
    r.disposition = mskb::disposition::rejected_static;
    r.message = sc.describe();
    json violations = json::array();
    for (const ScreenViolation& v : sc.violations)
      violations.push_back({{"rule", v.rule}, {"line", v.line}, {"excerpt", v.excerpt}, {"message", v.message}});
    r.failure = {{"screen", violations}};
    record_evaluation(&c, "candidate", r, Score{});
  }

  ProfileSummary profile_step(int round) {
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
    row.mode = cfg_.profile;
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

  // ---- the job

  void measure_references() {
    const auto files = mskb::shipped_kernels(spec_, p_, {"baseline", "vendor"});
    const mskb::KernelFile* base = nullptr;
    const mskb::KernelFile* vend = nullptr;
    for (const auto& f : files) {
      if (f.contender == "baseline") base = &f;
      if (f.contender == "vendor") vend = &f;
    }
    if (base == nullptr) throw JobStop{"failed", "baseline", "the task has no baseline kernel for " + info_.precision};
    const Cand bc = candidate_step("baseline", 0, 0, read_text(base->path), {}, base->path);
    const mskb::CompileResult bb = build_step(bc, agents::BuildRecipe{}, true);
    if (!bb.ok) throw JobStop{"failed", "baseline", "the baseline does not build: " + bb.error};
    base_cand_ = bc;
    base_so_ = bb.so_path;
    baseline_ = eval_step(bc, "baseline", bb.so_path);
    if (!mskb::is_correct(baseline_.disposition))
      throw JobStop{"failed", "baseline", "the baseline is not correct here: " + baseline_.message};
    have_baseline_ = true;
    if (vend != nullptr) {
      const Cand vc = candidate_step("vendor", 0, 0, read_text(vend->path), {}, vend->path);
      const mskb::CompileResult vb = build_step(vc, agents::BuildRecipe{}, true, false);  // vendor: trusted
      if (vb.ok) {
        vendor_ = eval_step(vc, "vendor", vb.so_path);
        have_vendor_ = mskb::is_correct(vendor_.disposition);
        if (!have_vendor_) say("vendor contender: " + one_line(vendor_.message));
      } else {
        say("vendor contender does not build: " + vb.error);
      }
    }
    best_.score = score_result(baseline_, baseline_, have_vendor_ ? &vendor_ : nullptr);
    best_.source = bc.source;
    best_.file = base->path;
    best_.trusted = true;
    best_.label = "the naive baseline";
    best_.sha = bc.sha;
    if (have_vendor_) vendor_p_ = score_result(vendor_, baseline_, nullptr).p;
    say(fmt::format("baseline {}; vendor {}", baseline_.disposition,
                    vend == nullptr ? std::string("none") : (have_vendor_ ? "P " + fmt_p(vendor_p_) : vendor_.disposition)));
  }

  std::string best_summary() const {
    const Score& s = best_.score;
    std::string out;
    if (!best_.candidate_id) {
      out = "This is the naive baseline itself: P = 1.00 by definition.";
    } else {
      out = fmt::format("P = {} (complexity-weighted speedup over the naive baseline), geometric mean {}", fmt_p(s.p), fmt_p(s.geomean));
      if (s.vs_vendor) out += fmt::format(", {:.2f}x the vendor's speed (complexity-weighted)", *s.vs_vendor);
      out += fmt::format("; measurement noise of P {:.1f}%.", 100.0 * s.rel_noise);
    }
    if (vendor_p_) out += fmt::format(" The vendor contender reaches P = {:.2f}.", *vendor_p_);
    else if (!spec_.vendor.empty()) out += " The vendor contender did not produce a correct result here.";
    return out;
  }

  void run_round(int round) {
    std::vector<std::string> log;
    const double best_before = best_.score.p.value_or(1.0);
    // Profile the current best.
    std::string profile_text, profile_absent, cls;
    if (cfg_.profile == "none") {
      profile_absent = "Profiling is off in this run (--profile none): reason from the timings and the code.";
    } else if (sv_.profiler == nullptr) {
      profile_absent = "No profiler is available in this run: reason from the timings and the code.";
    } else {
      const ProfileSummary ps = profile_step(round);
      if (ps.ok) {
        profile_text = ps.rendered;
        cls = ps.cls;
      } else {
        profile_absent = "The profiler could not profile the current best (" + one_line(ps.message, 300) +
                         "): reason from the timings and the code.";
      }
    }
    // Plan.
    std::optional<agents::Plan> plan;
    if (cfg_.planner) {
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
      plan = agents::parse_plan(out.text);
      std::string line = "planner: " + one_line(plan->summary(), 120);
      if (!plan->problems.empty()) line += " [" + one_line(plan->problems.front(), 100) + "]";
      log.push_back(line);
    }
    // Code.
    agents::CoderInput cin;
    cin.task = brief_;
    cin.round = round;
    cin.rounds = cfg_.rounds;
    cin.plan = plan;
    cin.best_label = best_.label;
    cin.best_summary = best_summary();
    cin.best_code = best_.source;
    cin.performance = best_.score.rows;
    cin.profile = profile_text;
    cin.history = history_;
    const LlmOut cout_ = llm_step(Agent::coder, round, 0, agents::coder_request(*sv_.prompts, cin, cfg_.coder_settings));
    agents::CodeAnswer answer = agents::parse_coder_answer(cout_.text, brief_.entry, cout_.truncated);
    std::string who = "coder";
    int fixes = 0;
    std::vector<std::string> earlier;
    std::string outcome;
    std::optional<std::int64_t> round_candidate;
    std::optional<double> round_p;
    bool accepted = false;
    for (;;) {
      Problem problem;
      if (!answer.ok) {
        problem = {ProblemKind::answer,
                   "The answer could not be used as a kernel file: " + answer.describe() +
                       (answer.code.empty() ? "\n(The file below is the current best kernel, which the plan starts from.)" : ""),
                   "unusable answer: " + one_line(answer.describe(), 140)};
      } else {
        const Cand c = candidate_step(who == "coder" ? "coder" : "debug", round, fixes, answer.code, answer.notes);
        round_candidate = c.id;
        const ScreenResult sc = screen_source(c.source, {cfg_.allow_libraries});
        if (!sc.ok) {
          screen_step(c, sc);
          problem = {ProblemKind::screen, "The integrity screen rejected the file (disposition rejected_static):\n" + sc.describe(),
                     one_line(sc.describe(), 160)};
        } else {
          mskb::CompileResult b = build_step(c, recipe_, cfg_.allow_libraries);
          while (!b.ok && !b.refused_policy && toolchain_failure(b) && fixes < cfg_.debug_loops) {
            ++fixes;
            agents::CompilerInput ci;
            ci.task = brief_;
            ci.recipe = recipe_;
            ci.log = tail(b.log.empty() ? b.error : b.log, 60);
            ci.code = c.source;
            ci.allowed_archs = cfg_.allowed_archs;
            ci.allowed_flags = flag_whitelist();
            const LlmOut co = llm_step(Agent::compiler, round, fixes, agents::compiler_request(*sv_.prompts, ci, cfg_.compiler_settings));
            const agents::CompilerAdvice adv = agents::parse_compiler_answer(co.text, recipe_, cfg_.allowed_archs);
            const bool changed = adv.recipe.arch != recipe_.arch || adv.recipe.flags != recipe_.flags || adv.recipe.lineinfo != recipe_.lineinfo;
            log.push_back(fmt::format("{}: compile_error ({}); compiler {}: {}", who, one_line(first_error(b), 100), fixes,
                                      !adv.ok ? "unusable answer" : adv.code_problem ? "a code problem" : changed ? agents::describe(adv.recipe) : "no change"));
            if (!adv.ok || adv.code_problem || !changed) break;
            recipe_ = adv.recipe;
            b = build_step(c, recipe_, cfg_.allow_libraries);
          }
          if (!b.ok && b.refused_policy) {
            policy_step(c, b);
            problem = {ProblemKind::screen, policy_report(b), one_line(b.error, 160)};
          } else if (!b.ok) {
            problem = {ProblemKind::compile_error, compile_report(b), "compile_error: " + one_line(first_error(b), 140)};
          } else {
            const mskb::ContenderResult r = eval_step(c, "candidate", b.so_path);
            const Score s = score_result(r, baseline_, have_vendor_ ? &vendor_ : nullptr);
            Score fs = s;  // the first measurement, or the re-measured one once the gate ran
            Verdict v;
            std::string why;
            std::optional<Problem> gate;
            if (s.correct) {
              v = judge(s, best_.score, cfg_.min_gain);
              if (v.accept) gate = acceptance_gate(c, b.so_path, fs, v, why);
            }
            if (!s.correct) {
              problem = {ProblemKind::harness, harness_report(r), short_verdict(r)};
            } else if (gate) {
              problem = *gate;
            } else {
              any_correct_ = true;
              if (fs.p && (!best_correct_p_ || *fs.p > *best_correct_p_)) best_correct_p_ = fs.p;
              round_p = fs.p;
              log.push_back(fmt::format("{}: correct, {}", who, why.empty() ? v.reason : why));
              if (v.accept) {
                accepted = true;
                outcome = fmt::format("accepted: P {:.2f} -> {:.2f}", best_before, fs.p.value_or(0));
                best_.candidate_id = c.id;
                best_.source = c.source;
                best_.file = c.file;
                best_.trusted = false;
                best_.score = fs;
                best_.round = round;
                best_.sha = c.sha;
                best_.label = fmt::format("the candidate accepted in round {}", round);
              } else if (!why.empty()) {
                outcome = "rejected: correct, " + why;
              } else {
                outcome = fmt::format("rejected: correct but P {:.2f} does not beat the best {:.2f} by more than the noise margin",
                                      s.p.value_or(0), best_before);
              }
              break;
            }
          }
        }
      }
      log.push_back(who + ": " + problem.brief);
      say(fmt::format("round {}: {}: {}", round, who, problem.brief));
      if (fixes >= cfg_.debug_loops) {
        outcome = fmt::format("failed: {} still failing after {} fix attempt{}", problem.brief.substr(0, problem.brief.find(':')), fixes,
                              fixes == 1 ? "" : "s");
        break;
      }
      ++fixes;
      agents::DebugInput di;
      di.task = brief_;
      di.plan = plan;
      di.kind = problem.kind;
      di.problem = problem.text;
      di.code = answer.code.empty() ? best_.source : answer.code;
      di.attempt = fixes;
      di.attempts = cfg_.debug_loops;
      di.earlier = earlier;
      earlier.push_back(fmt::format("attempt {}: {}", fixes, problem.brief));
      const LlmOut dout = llm_step(Agent::debug, round, fixes, agents::debug_request(*sv_.prompts, di, cfg_.debug_settings));
      answer = agents::parse_debug_answer(dout.text, brief_.entry, dout.truncated);
      who = "debug " + std::to_string(fixes);
    }
    if (accepted) rounds_without_gain_ = 0;
    else ++rounds_without_gain_;
    const std::string plan_line = plan ? plan->summary() : "";
    history_.push_back({round, plan_line, outcome, log});
    say(fmt::format("round {}: {}", round, outcome));

    const double best_after = best_.score.p.value_or(1.0);
    json payload = {{"round", round},  {"outcome", outcome}, {"accepted", accepted}, {"plan", plan_line},
                    {"steps", log},    {"class", cls},       {"attempts", fixes},    {"best_p", best_after}};
    table_.push_back({{"round", round},
                      {"outcome", outcome.substr(0, outcome.find(':'))},
                      {"attempts", fixes},
                      {"p", round_p ? json(*round_p) : json()},
                      {"best", best_after},
                      {"class", cls}});
    if (take(StepKind::round) != nullptr) return;
    store::RoundRow row;
    row.job_id = info_.id;
    row.seq = next_seq();
    row.round = round;
    row.outcome = outcome.substr(0, outcome.find(':'));
    row.candidate_id = round_candidate;
    row.p = round_p;
    row.best_p_before = best_before;
    row.best_p_after = best_after;
    row.attempts = fixes;
    row.payload = payload;
    sv_.store->record_round(row);
  }

  std::string round_table() const {
    std::string out = fmt::format("rounds:\n  {:<6} {:<9} {:>8} {:>7} {:>7}  {}\n", "round", "outcome", "attempts", "P", "best", "class");
    for (const json& r : table_)
      out += fmt::format("  {:<6} {:<9} {:>8} {:>7} {:>7.2f}  {}\n", r["round"].get<int>(), r["outcome"].get<std::string>(),
                         r["attempts"].get<int>(), r["p"].is_null() ? std::string("-") : fmt::format("{:.2f}", r["p"].get<double>()),
                         r["best"].get<double>(), r["class"].get<std::string>().empty() ? "-" : r["class"].get<std::string>());
    if (!out.empty()) out.pop_back();
    return out;
  }

  JobResult finish(const std::string& status, const std::string& reason, const std::string& message) {
    JobResult jr;
    jr.status = status;
    jr.stop_reason = reason;
    json best = nullptr;
    if (have_baseline_) {
      const Score& s = best_.score;
      best = {{"origin", best_.candidate_id ? "candidate" : "baseline"},
              {"candidate_id", best_.candidate_id ? json(*best_.candidate_id) : json()},
              {"round", best_.round},
              {"p", s.p ? json(*s.p) : json()},
              {"geomean", s.geomean ? json(*s.geomean) : json()},
              {"vs_vendor", s.vs_vendor ? json(*s.vs_vendor) : json()},
              {"rel_noise", s.rel_noise},
              {"sha256", best_.sha}};
      if (!env_.out_dir.empty()) {
        try {
          const std::string file = (fs::path(env_.out_dir) / (info_.task + "_" + info_.precision + ".cu")).string();
          write_text(file, best_.source);
          best["file"] = file;
        } catch (const std::exception& e) {
          say(std::string("cannot write the best kernel: ") + e.what());
        }
      }
    }
    jr.result = {{"task", info_.task},
                 {"precision", info_.precision},
                 {"status", status},
                 {"stop_reason", reason},
                 {"message", message},
                 {"rounds", history_.size()},
                 {"best", best},
                 {"correct", any_correct_},
                 {"best_correct_p", best_correct_p_ ? json(*best_correct_p_) : json()},
                 {"vendor_p", vendor_p_ ? json(*vendor_p_) : json()},
                 {"baseline", have_baseline_ ? json(baseline_.disposition) : json()}};
    if (!env_.out_dir.empty() && have_baseline_) {
      try {
        write_text((fs::path(env_.out_dir) / (info_.task + "_" + info_.precision + ".json")).string(), jr.result.dump(2) + "\n");
      } catch (const std::exception&) {
      }
    }
    try {
      sv_.store->set_job_status(info_.id, status, reason, jr.result);
    } catch (const std::exception& e) {
      say(std::string("cannot record the job's end: ") + e.what());
    }
    if (!table_.empty()) say(round_table());
    say(fmt::format("{} ({}): {}; best P {}", status, reason, message, fmt_p(best_.score.p)));
    return jr;
  }

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
  std::vector<json> table_;
  int rounds_without_gain_ = 0;
  int candidates_ = 0;
  bool any_correct_ = false;
  std::optional<double> best_correct_p_;
};

}  // namespace

JobResult run_job(const Services& services, const LoopConfig& config, const JobEnv& env, const store::JobInfo& job) {
  Job j(services, config, env, job);
  return j.run();
}

}  // namespace cudamaster::loop
