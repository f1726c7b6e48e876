// `cudamaster report [--run RUN] --html FILE`: a self-contained HTML page of one run (default: the
// newest in the store) - suite metrics, each task against its baseline and vendor, rounds,
// evaluations, profiles, agent usage and the best kernels - for sharing a run's results.
#include <cstdio>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands/commands.hpp"

#if CM_HAVE_AGENT_LOOP
#include <filesystem>

#include "cudamaster/loop/html_report.hpp"
#include "cudamaster/store/reading.hpp"
#include "cudamaster/store/store.hpp"
#include "mskb/util/files.hpp"
#endif

namespace cudamaster::cli {

#if CM_HAVE_AGENT_LOOP
namespace {

struct ReportOptions {
  std::int64_t run = 0;  // 0: the newest run
  std::string db = "cudamaster.db";
  std::string html;
};

[[noreturn]] void fail(const std::string& message, int code) {
  fmt::print(stderr, "cudamaster report: {}\n", message);
  throw CommandExit(code);
}

void run_report(const ReportOptions& o) {
  std::error_code ec;
  if (!std::filesystem::exists(o.db, ec)) fail("no run store at " + o.db + " (see --db)", 2);
  auto store = store::RunStore::open(o.db);
  std::int64_t id = o.run;
  if (id == 0) {
    const auto runs = store->runs();
    if (runs.empty()) fail("the run store " + o.db + " has no runs", 2);
    id = runs.back().id;
  }
  if (!store->run(id)) fail(fmt::format("no run {} in {} (see cudamaster runs)", id, o.db), 2);
  const std::string page = loop::render_html(loop::report_document(*store, id));
  try {
    mskb::write_file_atomic(o.html, page);
  } catch (const std::runtime_error& e) {
    fail(e.what(), 1);
  }
  fmt::print(stderr, "cudamaster report: run {} -> {} ({} KiB)\n", id, o.html, (page.size() + 1023) / 1024);
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand("report", "Write a self-contained HTML report of an optimization run");
  cmd->add_option("--run", o->run, "Run id (default: the newest run in the store)");
  cmd->add_option("--db", o->db, "Run store (default ./cudamaster.db)");
  cmd->add_option("--html", o->html, "Output HTML file")->required();
  cmd->callback([o] { store::reading_store(o->db, [&] { run_report(*o); }); });
}

#else

void add_report_command(CLI::App& app) {
  add_command_without_store(app, "report", "Write an HTML report of a run (not built: needs SQLite)", "see docs/agents.md");
}

#endif

}  // namespace cudamaster::cli
