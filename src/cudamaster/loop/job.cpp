// One job: a task in one precision, over R rounds (see optimizer.hpp for the contract; job.hpp
// for the parts of its implementation). This file: the job's journal, its references, its end.
#include <filesystem>

#include <fmt/format.h>

#include "job.hpp"
#include "mskb/core/registry.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace cudamaster::loop {

namespace detail {

using store::StepKind;

Job::Job(const Services& sv, const LoopConfig& cfg, const JobEnv& env, store::JobInfo info)
    : sv_(sv), cfg_(cfg), env_(env), info_(std::move(info)), spec_(mskb::get_task(info_.task)),
      p_(mskb::parse_precision(info_.precision)) {
  brief_ = agents::make_task_brief(spec_, p_, cfg_.allow_libraries, env_.gpu_name.empty() ? "NVIDIA GPU" : env_.gpu_name);
  tag_ = fmt::format("[{} {}]", info_.task, info_.precision);
  dir_ = (fs::path(env_.work_dir) / (info_.task + "_" + info_.precision)).string();
  recipe_ = cfg_.recipe;
}

JobResult Job::run() {
  try {
    steps_ = sv_.store->journal(info_.id);
    sv_.store->set_job_status(info_.id, store::Status::running, "", nullptr);
    if (!steps_.empty()) say(fmt::format("resuming: {} recorded steps are replayed from the store", steps_.size()));
    measure_references();
    for (int round = 1; round <= cfg_.rounds; ++round) {
      if (cfg_.patience > 0 && !cfg_.dry_run && rounds_without_gain_ >= cfg_.patience)  // a dry run measures no gain
        return finish(store::Status::finished, "patience",
                      fmt::format("{} rounds without gain (--patience {})", rounds_without_gain_, cfg_.patience));
      if (!replaying()) check_live_limits();
      if (env_.stage) env_.stage(info_, round);
      run_round(round);
      if (env_.heartbeat) env_.heartbeat();
    }
    if (cfg_.dry_run)
      return finish(store::Status::finished, "rounds",
                    fmt::format("dry run: all {} rounds done, {} of {} candidates compiled, none evaluated (no P)", cfg_.rounds, compiled_,
                                answered_));
    return finish(store::Status::finished, "rounds", fmt::format("all {} rounds done", cfg_.rounds));
  } catch (const JobStop& s) {
    return finish(s.status, s.reason, s.message);
  } catch (const std::exception& e) {
    return finish(store::Status::failed, "error", e.what());
  }
}

const store::Step* Job::take(StepKind kind) {
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

void Job::check_interrupt() {
  if (env_.interrupted != nullptr && env_.interrupted->load()) throw JobStop{store::Status::stopped, "interrupted", "interrupted"};
}

void Job::check_live_limits() {
  check_interrupt();
  const auto& budget = sv_.llm->budget();
  if (budget && budget->limit_usd() && budget->spent_usd() >= *budget->limit_usd())
    throw JobStop{store::Status::stopped, "budget", fmt::format("the run's budget of ${:.2f} is spent", *budget->limit_usd())};
  if (env_.deadline && std::chrono::steady_clock::now() >= *env_.deadline)
    throw JobStop{store::Status::stopped, "wall_clock", "the wall-clock limit (--max-minutes) is reached"};
}

void Job::say(const std::string& line) const {
  if (env_.progress) env_.progress(tag_ + " " + line);
}

void Job::measure_references() {
  const auto files = mskb::shipped_kernels(spec_, p_, {mskb::ContenderKind::baseline, mskb::ContenderKind::vendor});
  const mskb::KernelFile* base = nullptr;
  const mskb::KernelFile* vend = nullptr;
  for (const auto& f : files) {
    if (mskb::contender_kind(f.contender) == mskb::ContenderKind::baseline) base = &f;
    if (mskb::contender_kind(f.contender) == mskb::ContenderKind::vendor) vend = &f;
  }
  if (base == nullptr) throw JobStop{store::Status::failed, "baseline", "the task has no baseline kernel for " + info_.precision};
  const Cand bc = candidate_step(mskb::to_string(mskb::ContenderKind::baseline), 0, 0, read_text(base->path), {}, base->path);
  const mskb::CompileResult bb = build_step(bc, agents::BuildRecipe{}, true);
  if (!bb.ok) throw JobStop{store::Status::failed, "baseline", "the baseline does not build: " + bb.error};
  base_cand_ = bc;
  base_so_ = bb.so_path;
  if (cfg_.dry_run) {  // the baseline is the best the agents start from; nothing is measured
    best_.source = bc.source;
    best_.file = base->path;
    best_.label = "the naive baseline";
    best_.sha = bc.sha;
    say("dry run: baseline built, not evaluated; vendor not built");
    return;
  }
  baseline_ = eval_step(bc, mskb::to_string(mskb::ContenderKind::baseline), bb.so_path);
  if (!mskb::is_correct(baseline_.disposition))
    throw JobStop{store::Status::failed, "baseline", "the baseline is not correct here: " + baseline_.message};
  have_baseline_ = true;
  if (vend != nullptr) {
    const Cand vc = candidate_step(mskb::to_string(mskb::ContenderKind::vendor), 0, 0, read_text(vend->path), {}, vend->path);
    const mskb::CompileResult vb = build_step(vc, agents::BuildRecipe{}, true, false);  // vendor: trusted
    if (vb.ok) {
      vendor_ = eval_step(vc, mskb::to_string(mskb::ContenderKind::vendor), vb.so_path);
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
  say(fmt::format("baseline {}; vendor {}", mskb::to_string(baseline_.disposition),
                  vend == nullptr ? std::string("none") : (have_vendor_ ? "P " + fmt_p(vendor_p_) : mskb::to_string(vendor_.disposition))));
}

std::string Job::best_summary() const {
  if (cfg_.dry_run)
    return "Dry run: nothing is measured in this run (no GPU), so there are no times and no P; the current best is the naive "
           "baseline itself.";
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

std::string Job::round_table() const {
  std::string out = fmt::format("rounds:\n  {:<6} {:<9} {:>8} {:>7} {:>7}  {}\n", "round", "outcome", "attempts", "P", "best", "class");
  for (const json& r : table_)
    out += fmt::format("  {:<6} {:<9} {:>8} {:>7} {:>7}  {}\n", r["round"].get<int>(), r["outcome"].get<std::string>(),
                       r["attempts"].get<int>(), r["p"].is_null() ? std::string("-") : fmt::format("{:.2f}", r["p"].get<double>()),
                       cfg_.dry_run ? std::string("-") : fmt::format("{:.2f}", r["best"].get<double>()),
                       r["class"].get<std::string>().empty() ? "-" : r["class"].get<std::string>());
  if (!out.empty()) out.pop_back();
  return out;
}

JobResult Job::finish(store::Status status, const std::string& reason, const std::string& message) {
  JobResult jr;
  jr.status = status;
  jr.stop_reason = reason;
  json best = nullptr;
  if (have_baseline_) {
    const Score& s = best_.score;
    best = {{"origin", mskb::to_string(best_.candidate_id ? mskb::ContenderKind::candidate : mskb::ContenderKind::baseline)},
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
  if (!awaiting_.is_null()) jr.result["awaiting"] = awaiting_;
  if (cfg_.dry_run) {  // no P anywhere: the candidates were compiled, never evaluated
    jr.result["dry_run"] = true;
    jr.result["best"] = nullptr;
    jr.result["candidates"] = answered_;
    jr.result["compiled"] = compiled_;
  }
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
  say(cfg_.dry_run ? fmt::format("{} ({}): {}", to_string(status), reason, message)
                   : fmt::format("{} ({}): {}; best P {}", to_string(status), reason, message, fmt_p(best_.score.p)));
  return jr;
}

}  // namespace detail

JobResult run_job(const Services& services, const LoopConfig& config, const JobEnv& env, const store::JobInfo& job) {
  detail::Job j(services, config, env, job);
  return j.run();
}

}  // namespace cudamaster::loop
