// `cudamaster show RUN`: what a run did, read back from the run store - its configuration, the
// suite summary, each task's rounds with their steps, and on request every agent call (--calls),
// one call's full prompt and answer (--call ID) or one candidate's source (--candidate ID).
#include <cstdio>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands/commands.hpp"
#include "mskb/report/cells.hpp"
#include "mskb/util/command_line.hpp"

#if CM_HAVE_AGENT_LOOP
#include <filesystem>

#include "cudamaster/exec/executor.hpp"
#include "cudamaster/loop/summary.hpp"
#include "cudamaster/store/reading.hpp"
#include "cudamaster/store/store.hpp"
#endif

namespace cudamaster::cli {

#if CM_HAVE_AGENT_LOOP
namespace {

using nlohmann::json;

struct ShowOptions {
  std::int64_t run = 0;
  std::string db = "cudamaster.db";
  std::string json;  // --json: FILE, or "-" for stdout
  bool calls = false;
  std::int64_t call = -1;
  std::int64_t candidate = -1;
};

std::string dump(const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace); }

[[noreturn]] void fail(const std::string& message, int code) {
  fmt::print(stderr, "cudamaster show: {}\n", message);
  throw CommandExit(code);
}

std::string num(const json& v, const char* f = "{:.2f}") {
  return v.is_number() ? fmt::format(fmt::runtime(f), v.get<double>()) : std::string("-");
}

json call_brief(const json& c) {
  return {{"id", c["id"]},
          {"job_id", c["job_id"]},
          {"seq", c["seq"]},
          {"round", c["round"]},
          {"agent", c["agent"]},
          {"attempt", c["attempt"]},
          {"provider", c["provider"]},
          {"model", c["model"]},
          {"input_tokens", c["input_tokens"]},
          {"output_tokens", c["output_tokens"]},
          {"cost_usd", c["cost_usd"]},
          {"latency_ms", c["latency_ms"]},
          {"finish_reason", c["finish_reason"]},
          {"replayed", c["replayed"]},
          {"error", c["error"]}};
}

// --call ID or --candidate ID: that one row (the call's prompt and answer, the candidate's source).
void show_one_row(const ShowOptions& o, store::RunStore& store, const std::vector<store::JobInfo>& jobs) {
  const std::string table = o.call >= 0 ? "llm_calls" : "candidates";
  const std::int64_t id = o.call >= 0 ? o.call : o.candidate;
  for (const store::JobInfo& j : jobs)
    for (const json& row : store.rows(table, j.id)) {
      if (row["id"].get<std::int64_t>() != id) continue;
      if (!o.json.empty()) write_json_output(dump(row), o.json);
      if (o.json == "-") {
      } else if (o.call >= 0) {
        fmt::print("call {}: {} {}{} round {} ({} {}), {} in / {} out tokens, {}\n", id, j.task, row["agent"].get<std::string>(),
                   row["attempt"].get<int>() > 0 ? " " + std::to_string(row["attempt"].get<int>()) : "", row["round"].get<int>(),
                   row["provider"].get<std::string>(), row["model"].get<std::string>(), row["input_tokens"].get<std::int64_t>(),
                   row["output_tokens"].get<std::int64_t>(), row["error"].get<std::string>().empty() ? "ok" : row["error"].get<std::string>());
        for (const json& m : row["request"].value("messages", json::array()))
          fmt::print("\n===== {} =====\n{}\n", m.value("role", ""), m.value("content", ""));
        fmt::print("\n===== answer ({}) =====\n{}\n", row["finish_reason"].get<std::string>(), row["response"].get<std::string>());
      } else {
        fmt::print("{}", row["source"].get<std::string>());
      }
      return;
    }
  fail(fmt::format("run {} has no {} {}", o.run, o.call >= 0 ? "agent call" : "candidate", id), 2);
}

// One job as `show --json` gives it: rounds, evaluations, record counts (and calls with --calls or --json).
json job_json(const ShowOptions& o, store::RunStore& store, const store::JobInfo& j) {
  json jj = {{"id", j.id},        {"task", j.task},   {"precision", j.precision},
             {"status", j.status}, {"stop_reason", j.stop_reason}, {"result", j.result},
             {"rounds", json::array()}, {"evaluations", json::array()}};
  for (const json& r : store.rows("rounds", j.id)) jj["rounds"].push_back(r["payload"]);
  for (const json& e : store.rows("evaluations", j.id)) {
    json b = e;
    b.erase("payload");
    jj["evaluations"].push_back(b);
  }
  jj["counts"] = {{"llm_calls", store.rows("llm_calls", j.id).size()},
                  {"candidates", store.rows("candidates", j.id).size()},
                  {"builds", store.rows("builds", j.id).size()},
                  {"evaluations", jj["evaluations"].size()},
                  {"profiles", store.rows("profiles", j.id).size()}};
  if (o.calls || !o.json.empty()) {
    jj["calls"] = json::array();
    for (const json& c : store.rows("llm_calls", j.id)) jj["calls"].push_back(call_brief(c));
  }
  return jj;
}

void print_run_header(const ShowOptions& o, const store::RunInfo& run) {
  const json& cfg = run.config;
  const json loop = cfg.value("loop", json::object());
  fmt::print("run {}: {} (created {}, {} session{}, {:.1f} min)\n", o.run, to_string(run.status), run.created_at, run.sessions,
             run.sessions == 1 ? "" : "s", run.active_seconds / 60.0);
  fmt::print("  llm {}; rounds {}, debug loops {}, patience {}, profile {}, planner {}, min gain {}, libraries {}\n", run.llm,
             loop.value("rounds", 0), loop.value("debug_loops", 0), loop.value("patience", 0), loop.value("profile", ""),
             loop.value("planner", true) ? "on" : "off", loop.value("min_gain", 0.0), loop.value("allow_libraries", false) ? "allowed" : "no");
  fmt::print("  device {}; output {}\n", cfg.value("device", json::object()).value("name", std::string("?")), cfg.value("out_dir", ""));
  fmt::print("  GPU work: {}\n", exec::Executor::from_json(cfg.value("executor", json::object())).describe());
  fmt::print("  {}\n", mskb::report::code_line(cfg.value("tool", json())));
  for (const json& t : cfg.value("resumed_with", json::array())) fmt::print("  resumed with {}\n", mskb::report::code_text(t));
  fmt::print("\n");
}

void print_calls(const json& calls) {
  fmt::print("  {:>5} {:>5} {:<8} {:>3} {:>9} {:>9} {:>9} {:>8}  {}\n", "call", "round", "agent", "try", "in tok", "out tok", "cost",
             "latency", "finish / error");
  for (const json& c : calls)
    fmt::print("  {:>5} {:>5} {:<8} {:>3} {:>9} {:>9} {:>9} {:>7.1f}s  {}\n", c["id"].get<std::int64_t>(), c["round"].get<int>(),
               c["agent"].get<std::string>(), c["attempt"].get<int>(), c["input_tokens"].get<std::int64_t>(),
               c["output_tokens"].get<std::int64_t>(), c["cost_usd"].is_number() ? fmt::format("${:.4f}", c["cost_usd"].get<double>()) : "-",
               c["latency_ms"].get<double>() / 1000.0,
               c["error"].get<std::string>().empty() ? c["finish_reason"].get<std::string>() : c["error"].get<std::string>());
}

// One job in text: its outcome, rounds with plans and steps, record counts (and calls with --calls).
void print_job(const ShowOptions& o, const json& j) {
  const json best = j["result"].is_object() ? j["result"].value("best", json()) : json();
  fmt::print("\n{} {}: {} ({}); best: {} P {} (vs vendor {})\n", j["task"].get<std::string>(), j["precision"].get<std::string>(),
             j["status"].get<std::string>(), j["stop_reason"].get<std::string>(),
             best.is_object() ? best.value("origin", "") : "-", best.is_object() ? num(best.value("p", json())) : "-",
             best.is_object() ? num(best.value("vs_vendor", json())) : "-");
  if (j["stop_reason"] == "awaiting_reply" && j["status"] == "stopped" && j["result"].is_object()) {
    const json w = j["result"].value("awaiting", json::object());
    fmt::print("  waiting for a reply: {} ({}{}, round {}); answer it, then resume the run\n", w.value("request", std::string("?")),
               w.value("agent", ""), w.value("attempt", 0) > 0 ? " " + std::to_string(w.value("attempt", 0)) : "", w.value("round", 0));
  }
  for (const json& r : j["rounds"]) {
    fmt::print("  round {}: {}\n", r.value("round", 0), r.value("outcome", ""));
    if (!r.value("plan", "").empty()) fmt::print("    plan: {}\n", r.value("plan", ""));
    for (const json& s : r.value("steps", json::array())) fmt::print("    - {}\n", s.get<std::string>());
  }
  const json& n = j["counts"];
  fmt::print("  recorded: {} agent calls, {} candidates, {} builds, {} evaluations, {} profiles\n", n["llm_calls"].get<int>(),
             n["candidates"].get<int>(), n["builds"].get<int>(), n["evaluations"].get<int>(), n["profiles"].get<int>());
  if (o.calls) print_calls(j["calls"]);
}

void run_show(const ShowOptions& o) {
  std::error_code ec;
  if (!std::filesystem::exists(o.db, ec)) fail("no run store at " + o.db + " (see --db)", 2);
  auto store = store::RunStore::open(o.db);
  const auto run = store->run(o.run);
  if (!run) fail(fmt::format("no run {} in {} (see cudamaster runs)", o.run, o.db), 2);
  const auto jobs = store->jobs(o.run);

  if (o.call >= 0 || o.candidate >= 0) {
    show_one_row(o, *store, jobs);
    return;
  }

  const json summary = run->summary.is_object() ? run->summary : loop::build_summary(*store, o.run);
  json out = {{"run", o.run}, {"summary", summary}, {"jobs", json::array()}};
  for (const store::JobInfo& j : jobs) out["jobs"].push_back(job_json(o, *store, j));
  if (!o.json.empty()) write_json_output(dump(out), o.json);
  if (o.json == "-") return;
  print_run_header(o, *run);
  fmt::print("{}\n", loop::render_summary(summary));
  for (const json& j : out["jobs"]) print_job(o, j);
}

}  // namespace

void add_show_command(CLI::App& app) {
  auto o = std::make_shared<ShowOptions>();
  CLI::App* cmd = app.add_subcommand("show", "Show what an optimization run did (rounds, agent calls, candidates)");
  cmd->add_option("run", o->run, "Run id (see cudamaster runs)")->required();
  cmd->add_option("--db", o->db, "Run store (SQLite)");
  mskb::add_json_option(cmd, o->json, "Write the run (or the --call / --candidate row) as JSON");
  cmd->add_flag("--calls", o->calls, "List every agent call (tokens, cost, latency)");
  cmd->add_option("--call", o->call, "Print one agent call's full prompt and answer");
  cmd->add_option("--candidate", o->candidate, "Print one candidate's source");
  cmd->callback([o] { store::reading_store(o->db, [&] { run_show(*o); }); });
}

#else

void add_show_command(CLI::App& app) {
  add_command_without_store(app, "show", "Show an optimization run (not built: needs SQLite)", "see docs/agents.md");
}

#endif

}  // namespace cudamaster::cli
