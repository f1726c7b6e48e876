#include "cudamaster/loop/summary.hpp"

#include <cmath>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "mskb/core/scoring.hpp"
#include "mskb/protocol/vocabulary.hpp"
#include "mskb/report/cells.hpp"
#include "mskb/report/yardsticks.hpp"

namespace cudamaster::loop {

using nlohmann::json;

namespace {
std::optional<double> opt(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}
std::string fmt_opt(const json& v, const char* f = "{:.2f}") {
  return v.is_number() ? fmt::format(fmt::runtime(f), v.get<double>()) : std::string("-");
}

std::int64_t id_of(const json& row, const char* key) {
  return row.contains(key) && row[key].is_number_integer() ? row[key].get<std::int64_t>() : -1;
}

// The roofline fraction of a job's best kernel at its largest timed shape, from its timed
// evaluation (the contender without a "/mode"): {"sol", "shape", "median_us", "launch_bound"};
// null without one.
json best_roofline(store::RunStore& store, std::int64_t job_id, const json& best, const std::optional<double>& floor_us) {
  if (!best.is_object() || id_of(best, "candidate_id") < 0) return nullptr;
  std::int64_t evaluation = -1;
  for (const json& e : store.rows("evaluations", job_id))
    if (id_of(e, "candidate_id") == id_of(best, "candidate_id") && e.value("contender", "").find('/') == std::string::npos) evaluation = id_of(e, "id");
  const std::vector<json> shapes = store.rows("eval_shapes", job_id);
  const json* largest = nullptr;
  for (const json& sh : shapes)
    if (id_of(sh, "evaluation_id") == evaluation && sh.contains("complexity") && sh["complexity"].is_number() &&
        (largest == nullptr || sh["complexity"].get<double>() > (*largest)["complexity"].get<double>()))
      largest = &sh;
  if (largest == nullptr) return nullptr;
  const json& l = *largest;
  return {{"sol", l.value("sol_fraction", json())},
          {"shape", l.value("shape", json())},
          {"median_us", l.value("median_us", json())},
          {"launch_bound", mskb::is_launch_bound(l.value("median_us", json()), floor_us)}};
}
// The SOL cell of a task: "81%", "3%L" (launch-bound), "-" (not known).
std::string sol_text(const json& roofline) {
  if (!roofline.is_object() || !roofline.value("sol", json()).is_number()) return "-";
  return fmt::format("{:.0f}%{}", 100 * roofline["sol"].get<double>(), roofline.value("launch_bound", false) ? "L" : "");
}

}  // namespace

json build_summary(store::RunStore& store, std::int64_t run_id) {
  const auto run = store.run(run_id);
  if (!run) throw store::StoreError("no run " + std::to_string(run_id));
  json tasks = json::array();
  const json device = run->config.is_object() ? run->config.value("device", json::object()) : json::object();
  const std::optional<double> floor = mskb::launch_floor_us(device);
  std::vector<std::optional<double>> ps;
  std::vector<double> vendor_ratios;
  for (const store::JobInfo& j : store.jobs(run_id)) {
    const json& r = j.result;
    std::optional<double> p;
    const json best = r.is_object() ? r.value("best", json()) : json();
    // The best is a candidate (not the baseline itself).
    const bool candidate = best.is_object() && mskb::from_string<mskb::ContenderKind>(best.value("origin", "")) == mskb::ContenderKind::candidate;
    if (candidate) p = opt(best, "p");
    else if (r.is_object() && r.value("correct", false)) p = opt(r, "best_correct_p");
    ps.push_back(p);
    const std::optional<double> vv = candidate ? opt(best, "vs_vendor") : std::nullopt;
    if (vv) vendor_ratios.push_back(*vv);
    tasks.push_back({{"task", j.task},
                     {"precision", j.precision},
                     {"status", j.status},
                     {"stop_reason", j.stop_reason},
                     {"p", p ? json(*p) : json()},
                     {"best_origin", best.is_object() ? best.value("origin", "") : ""},
                     {"vs_vendor", vv ? json(*vv) : json()},
                     // the three yardsticks of the best kernel: P, vs vendor (or why none), SOL at its largest shape
                     {"vendor", mskb::task_vendor(json::object(), j.task)},
                     {"roofline", candidate ? best_roofline(store, j.id, best, floor) : json()},
                     {"vendor_p", r.is_object() ? r.value("vendor_p", json()) : json()},
                     // an unfinished job has no result yet: the rounds it recorded so far
                     {"rounds", r.is_object() ? r.value("rounds", 0) : static_cast<int>(store.rows("rounds", j.id).size())},
                     {"file", best.is_object() ? best.value("file", "") : ""},
                     {"message", r.is_object() ? r.value("message", "") : ""}});
    if (r.is_object() && r.value("dry_run", false)) {
      tasks.back()["candidates"] = r.value("candidates", 0);
      tasks.back()["compiled"] = r.value("compiled", 0);
    }
  }
  const mskb::SuiteSummary s = mskb::summarize_suite(ps);
  const bool dry = run->config.is_object() && run->config.value("dry_run", false);
  // A dry run evaluates nothing: its suite has no score of any kind.
  json suite = {{"tasks", s.tasks}, {"dry_run", true}};
  if (!dry) {
    suite = {{"tasks", s.tasks},       {"correct", s.correct}, {"success_rate", s.success_rate}, {"fast_1", s.fast_1},
             {"fast_1_5", s.fast_1_5}, {"fast_2", s.fast_2},   {"mean_p", s.correct > 0 ? json(s.mean_p) : json()},
             {"mean_vs_vendor", nullptr}};
    if (!vendor_ratios.empty()) {
      double sum = 0, logs = 0;
      for (double v : vendor_ratios) {
        sum += v;
        logs += std::log(v);
      }
      suite["mean_vs_vendor"] = sum / static_cast<double>(vendor_ratios.size());
      suite["geomean_vs_vendor"] = std::exp(logs / static_cast<double>(vendor_ratios.size()));
      suite["tasks_with_vendor"] = vendor_ratios.size();
    }
  }
  json agents = json::array();
  std::int64_t in = 0, out = 0;
  for (const json& a : store.usage_by_agent(run_id)) {
    agents.push_back(a);
    in += a.value("input_tokens", std::int64_t{0});
    out += a.value("output_tokens", std::int64_t{0});
  }
  return {{"run", run_id},
          {"status", run->status},
          {"dry_run", dry},
          {"llm", run->llm},
          {"created_at", run->created_at},
          {"active_seconds", run->active_seconds},
          {"config", run->config},
          {"launch_floor_us", floor ? json(*floor) : json()},
          {"tasks", tasks},
          {"suite", suite},
          {"agents", agents},
          {"cost_usd", store.run_cost(run_id)},
          {"tokens", {{"input", in}, {"output", out}}}};
}

std::string render_summary(const json& s) {
  const bool dry = s.value("dry_run", false);
  std::string out = fmt::format("run {} ({}) with {}\n", s.value("run", 0), s.value("status", ""), s.value("llm", ""));
  out += "  " + mskb::report::code_line(s.value("config", json::object()).value("tool", json())) + "\n";
  if (dry) out += "  DRY RUN: the agents and the compiler only; no candidate was evaluated or profiled: no P, not a score\n";
  out += fmt::format("  {:<24} {:<5} {:<9} {:<12} {:>7} {:>9} {:>7} {:>7}\n", "task", "prec", "status", "stop", "P", "vs vendor", "SOL",
                     "rounds");
  std::vector<std::string> notes;
  for (const json& t : s["tasks"]) {
    out += fmt::format("  {:<24} {:<5} {:<9} {:<12} {:>7} {:>9} {:>7} {:>7}\n", t.value("task", ""), t.value("precision", ""),
                       t.value("status", ""), t.value("stop_reason", ""), fmt_opt(t["p"]),
                       dry ? std::string("-") : mskb::vendor_cell(t.value("vendor", json()), t.value("vs_vendor", json()), false),
                       sol_text(t.value("roofline", json())), t.value("rounds", 0));
    const json v = t.value("vendor", json());
    if (v.is_object() && v.value("route", "").empty() && t.value("precision", "") == "fp32")
      notes.push_back(fmt::format("  vendor of {}: none: {}\n", t.value("task", ""), v.value("none_reason", "")));
  }
  for (const std::string& n : notes) out += n;
  if (!dry)
    out += "  SOL: the best kernel's fraction of the roofline at its largest timed shape (L: launch-bound). " +
         mskb::launch_floor_line(json{{"launch_floor_us", s.value("launch_floor_us", json())}}) + "\n";
  const json& u = s["suite"];
  if (dry) {
    int answered = 0, compiled = 0;
    for (const json& t : s["tasks"]) {
      answered += t.value("candidates", 0);
      compiled += t.value("compiled", 0);
    }
    out += fmt::format("  suite: dry run: {} tasks, {} of {} candidates compiled; none evaluated (no P)\n", u.value("tasks", 0), compiled, answered);
  } else {
    out += fmt::format("  suite: {} tasks, {} with a correct generated kernel; success rate {:.0f}%; fast_1 {:.0f}%, fast_1.5 {:.0f}%, "
                     "fast_2 {:.0f}%; mean P {}; mean vs vendor {}\n",
                     u.value("tasks", 0), u.value("correct", 0), 100 * u.value("success_rate", 0.0), 100 * u.value("fast_1", 0.0),
                     100 * u.value("fast_1_5", 0.0), 100 * u.value("fast_2", 0.0), fmt_opt(u["mean_p"]), fmt_opt(u["mean_vs_vendor"]));
  }
  out += fmt::format("  {:<9} {:>6} {:>10} {:>10} {:>10} {:>9}\n", "agent", "calls", "input tok", "output tok", "cost", "latency");
  for (const json& a : s["agents"])
    out += fmt::format("  {:<9} {:>6} {:>10} {:>10} {:>10} {:>8.1f}s\n", a.value("agent", ""), a.value("calls", 0),
                       a.value("input_tokens", 0), a.value("output_tokens", 0), fmt::format("${:.4f}", a.value("cost_usd", 0.0)),
                       a.value("latency_ms", 0.0) / 1000.0);
  out += fmt::format("  total: {} input + {} output tokens, ${:.4f}", s["tokens"].value("input", 0), s["tokens"].value("output", 0),
                     s.value("cost_usd", 0.0));
  return out;
}

}  // namespace cudamaster::loop
