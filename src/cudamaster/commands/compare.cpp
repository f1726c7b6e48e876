// `cudamaster compare RUN [RUN...] [--db FILE] [--html FILE] [--markdown FILE]`: the ablation
// table of several runs of one store - success rate, fast_p, mean P, ratio vs vendor, tokens and
// cost per agent, wall time - labelled by the settings that differ between the runs. Without
// --html or --markdown the Markdown table goes to stdout.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands/commands.hpp"

#if CM_HAVE_AGENT_LOOP
#include <filesystem>

#include "cudamaster/loop/compare_report.hpp"
#include "cudamaster/store/reading.hpp"
#include "cudamaster/store/store.hpp"
#include "mskb/util/files.hpp"
#endif

namespace cudamaster::cli {

#if CM_HAVE_AGENT_LOOP
namespace {

struct CompareOptions {
  std::vector<std::int64_t> runs;
  std::string db = "cudamaster.db";
  std::string html, markdown;
};

[[noreturn]] void fail(const std::string& message, int code) {
  fmt::print(stderr, "cudamaster compare: {}\n", message);
  throw CommandExit(code);
}

void write(const std::string& path, const std::string& text) {
  try {
    mskb::write_file_atomic(path, text);
  } catch (const std::runtime_error& e) {
    fail(e.what(), 1);
  }
  fmt::print(stderr, "cudamaster compare: -> {} ({} KiB)\n", path, (text.size() + 1023) / 1024);
}

void run_compare(const CompareOptions& o) {
  std::error_code ec;
  if (!std::filesystem::exists(o.db, ec)) fail("no run store at " + o.db + " (see --db)", 2);
  auto store = store::RunStore::open(o.db);
  for (const std::int64_t id : o.runs)
    if (!store->run(id)) fail(fmt::format("no run {} in {} (see cudamaster runs)", id, o.db), 2);
  const nlohmann::json doc = loop::compare_document(*store, o.runs);
  if (!o.html.empty()) write(o.html, loop::render_compare_html(doc));
  if (!o.markdown.empty()) write(o.markdown, loop::render_compare_markdown(doc));
  if (o.html.empty() && o.markdown.empty()) fmt::print("{}", loop::render_compare_markdown(doc));
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand("compare", "Compare runs of the store (the ablation table: success rate, fast_p, P, cost)");
  cmd->add_option("runs", o->runs, "Run ids (see cudamaster runs)")->required()->check(CLI::PositiveNumber);
  cmd->add_option("--db", o->db, "Run store (default ./cudamaster.db)");
  cmd->add_option("--html", o->html, "Write a self-contained HTML page");
  cmd->add_option("--markdown", o->markdown, "Write the table as Markdown (default: to stdout when no file is given)");
  cmd->callback([o] { store::reading_store(o->db, [&] { run_compare(*o); }); });
}

#else

void add_compare_command(CLI::App& app) {
  add_command_without_store(app, "compare", "Compare runs of the store (not built: needs SQLite)", "see docs/agents.md");
}

#endif

}  // namespace cudamaster::cli
