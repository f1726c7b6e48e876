// `cudamaster runs`: the runs in a run store, newest last (id, when, status, LLM, tasks, cost).
// A stopped run whose unfinished jobs all wait for exchange replies is "waiting", with the request
// files to answer listed under it.
#include <cstdio>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands/commands.hpp"
#include "mskb/util/command_line.hpp"

#if CM_HAVE_AGENT_LOOP
#include <filesystem>

#include <unistd.h>

#include "cudamaster/loop/optimizer.hpp"
#include "cudamaster/store/reading.hpp"
#include "cudamaster/store/store.hpp"
#endif

namespace cudamaster::cli {

#if CM_HAVE_AGENT_LOOP
namespace {

using nlohmann::json;

struct RunsOptions {
  std::string db = "cudamaster.db";
  std::string json;  // --json: FILE, or "-" for stdout
};

// A run marked running whose process is gone was killed: it can be resumed.
std::string live_status(const store::RunInfo& r) {
  if (r.status != store::Status::running) return to_string(r.status);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::error_code ec;
  if (r.host == host && !std::filesystem::exists("/proc/" + std::to_string(r.pid), ec)) return "interrupted";
  return to_string(store::Status::running);
}

void run_runs(const RunsOptions& o) {
  std::error_code ec;
  if (!std::filesystem::exists(o.db, ec)) {
    fmt::print(stderr, "cudamaster runs: no run store at {} (see --db)\n", o.db);
    throw CommandExit(2);
  }
  auto store = store::RunStore::open(o.db);
  json out = json::array();
  for (const store::RunInfo& r : store->runs()) {
    int done = 0, total = 0;
    const std::vector<store::JobInfo> jobs = store->jobs(r.id);
    for (const store::JobInfo& j : jobs) {
      ++total;
      done += j.status == store::Status::finished || j.status == store::Status::failed;
    }
    bool all_waiting = false;
    const std::vector<json> waiting = loop::waiting_jobs(jobs, &all_waiting);
    std::string status = live_status(r);
    if (status == to_string(store::Status::stopped) && all_waiting) status = "waiting";
    out.push_back({{"id", r.id},
                   {"created_at", r.created_at},
                   {"updated_at", r.updated_at},
                   {"status", status},
                   {"waiting", waiting},
                   {"llm", r.llm},
                   {"tasks", r.config.value("tasks", json::array())},
                   {"precisions", r.config.value("precisions", json::array())},
                   {"jobs_done", done},
                   {"jobs", total},
                   {"cost_usd", store->run_cost(r.id)},
                   {"active_seconds", r.active_seconds},
                   {"sessions", r.sessions}});
  }
  if (!o.json.empty()) write_json_output(out.dump(2), o.json);
  if (o.json == "-") return;
  fmt::print("{:>4}  {:<20}  {:<11}  {:>5}  {:>9}  {:>7}  {}\n", "run", "created (UTC)", "status", "jobs", "cost", "minutes", "llm / tasks");
  for (const json& r : out) {
    std::string tasks;
    for (const json& t : r["tasks"]) tasks += (tasks.empty() ? "" : ",") + t.get<std::string>();
    if (tasks.size() > 40) tasks = tasks.substr(0, 37) + "...";
    fmt::print("{:>4}  {:<20}  {:<11}  {:>5}  {:>9}  {:>7.1f}  {} / {}\n", r["id"].get<std::int64_t>(), r["created_at"].get<std::string>(),
               r["status"].get<std::string>(), fmt::format("{}/{}", r["jobs_done"].get<int>(), r["jobs"].get<int>()),
               fmt::format("${:.4f}", r["cost_usd"].get<double>()), r["active_seconds"].get<double>() / 60.0,
               r["llm"].get<std::string>(), tasks);
    for (const json& w : r["waiting"])
      fmt::print("      waiting: {} ({} {} {}, round {})\n", w.value("request", std::string("?")), w.value("task", ""),
                 w.value("precision", ""), w.value("agent", ""), w.value("round", 0));
  }
}

}  // namespace

void add_runs_command(CLI::App& app) {
  auto o = std::make_shared<RunsOptions>();
  CLI::App* cmd = app.add_subcommand("runs", "List the optimization runs in a run store");
  cmd->add_option("--db", o->db, "Run store (SQLite)");
  mskb::add_json_option(cmd, o->json, "Write the runs as JSON");
  cmd->callback([o] { store::reading_store(o->db, [&] { run_runs(*o); }); });
}

#else

void add_runs_command(CLI::App& app) {
  add_command_without_store(app, "runs", "List optimization runs (not built: needs SQLite)", "see docs/agents.md");
}

#endif

}  // namespace cudamaster::cli
