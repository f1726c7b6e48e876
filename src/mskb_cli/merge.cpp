// `mskb merge`: joins mskb run/check JSON reports (e.g. one per category or cluster job) into one
// JSON and Markdown report; --expect names the groups the merge must hold whole.
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "mskb/report/document.hpp"
#include "mskb/report/fields.hpp"
#include "mskb/report/markdown.hpp"
#include "mskb/util/command_line.hpp"

namespace mskb::cli {

namespace {

using json = nlohmann::json;

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string json;
  std::string markdown;
  std::vector<std::string> expect;
};

std::vector<json> read_reports(const std::vector<std::string>& paths) {
  std::vector<json> reports;
  for (const auto& f : paths) {
    std::ifstream in(f);
    json j = json::parse(in, nullptr, false);
    if (j.is_discarded()) throw std::invalid_argument("merge: " + f + " is not valid JSON");
    reports.push_back(std::move(j));
  }
  return reports;
}

// " (partial: ...)", " (every expected group whole)" or "" for the summary line.
std::string merge_state(const json& merged, const MergeOptions& o) {
  std::string state;
  if (merged.contains("incomplete_groups")) {
    state = fmt::format(" (partial: {} expected groups missing or not finished:", merged["incomplete_groups"].size());
    for (const auto& g : merged["incomplete_groups"]) state += " " + g.get<std::string>();
    state += ")";
  } else if (merged.value("partial", false)) {
    state = " (partial: a report was partial; --expect checks whether the merge is whole)";
  } else if (!o.expect.empty()) {
    state = " (every expected group whole)";
  }
  return state;
}

void run_merge(const MergeOptions& o) {
  const std::vector<json> reports = read_reports(o.inputs);
  const json merged = merge_reports(reports, expected_groups(o.expect));
  // The Markdown needs fields a JSON merge does not (mskb/report/fields.hpp): checked before anything is written.
  if (!o.markdown.empty() || o.json.empty())
    if (const std::vector<std::string> problems = report_field_problems(merged); !problems.empty())
      throw std::invalid_argument(fmt::format("merge: not as mskb writes a report (places in the merged report): {}", fmt::join(problems, "; ")));
  if (!o.json.empty()) write_json(merged, o.json);
  if (!o.markdown.empty()) write_text(render_markdown(merged), o.markdown);
  if (o.json.empty() && o.markdown.empty()) std::cout << render_markdown(merged);
  std::cerr << fmt::format("mskb merge: {} reports, {} contenders, {} timed shapes{}\n", reports.size(), merged["contenders"].size(),
                           merged["results"].size(), merge_state(merged, o));
  // The reports are written either way; a merge that misses an expected group is not a success.
  if (merged.contains("incomplete_groups")) throw CommandExit(1);
}

}  // namespace

void add_merge_command(CLI::App& app) {
  auto o = std::make_shared<MergeOptions>();
  auto* merge = app.add_subcommand("merge", "Merge mskb run/check JSON reports (e.g. one per category or cluster job) into one JSON and Markdown");
  merge->add_option("reports", o->inputs, "JSON reports; a (task, precision) group comes whole from the last report that has it")
      ->required()
      ->check(existing_file());
  add_json_option(merge, o->json, "Write the merged JSON report");
  merge->add_option("--markdown", o->markdown, "Write the merged Markdown report to FILE (default: stdout when no --json)");
  merge->add_option("--expect", o->expect,
                    "all | CATEGORY | TASK (comma-separated or repeated): the merge must hold these tasks' groups whole; "
                    "partial, naming the missing ones, and exit 1 otherwise")
      ->delimiter(',');
  merge->callback([o] { run_merge(*o); });
}

}  // namespace mskb::cli
