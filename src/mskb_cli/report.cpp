// `mskb report` (one run report as an HTML page, CSV, the Markdown `mskb run --markdown` writes, or a
// terminal overview) and `mskb compare`
// (several run reports side by side as an HTML page or Markdown). The numbers are
// mskb/harness/report_data.hpp's, the layout mskb/harness/html_report.hpp's.
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
#include "mskb/report/csv.hpp"
#include "mskb/report/fields.hpp"
#include "mskb/report/html.hpp"
#include "mskb/report/markdown.hpp"
#include "mskb/report/numbers.hpp"
#include "mskb/report/text.hpp"
#include "mskb/util/command_line.hpp"
#include "mskb/util/text.hpp"

namespace mskb::cli {

namespace {

using json = nlohmann::json;

json read_report(const std::string& path, const char* command) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(std::string(command) + ": cannot read " + path);
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded()) throw std::invalid_argument(std::string(command) + ": " + path + " is not valid JSON");
  return j;
}

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// `text` to FILE, or stdout for "-"; the summary line names where it went.
void emit(const std::string& text, const std::string& path, const char* command, const char* what) {
  if (path == "-") {
    std::cout << text;
    return;
  }
  write_text(text, path);
  std::cerr << fmt::format("mskb {}: {} -> {} ({} KiB)\n", command, what, path, (text.size() + 1023) / 1024);
}

struct ReportOptions {
  std::string input;
  std::string html;
  std::string csv;
  std::string markdown;
};

void run_report(const ReportOptions& o) {
  const json run = read_report(o.input, "report");
  // A report without a field the renderers need is refused before anything is written, naming the
  // entries and fields (fields.hpp); one that is not a report at all says so (run_report_data).
  if (run.is_object() && run.contains("device") && run.contains("contenders"))
    if (const std::vector<std::string> problems = report_field_problems(run); !problems.empty())
      throw std::invalid_argument(fmt::format("report: {}: not as mskb writes a report: {}", o.input, fmt::join(problems, "; ")));
  try {  // what the check above does not cover (json_config.hpp, nlohmann's type errors): the error names the file
    const json data = run_report_data(run);
    if (!o.html.empty()) emit(render_run_html(data, base_name(o.input)), o.html, "report", "HTML");
    if (!o.csv.empty()) emit(render_run_csv(data), o.csv, "report", "CSV");
    if (!o.markdown.empty()) emit(render_markdown(run), o.markdown, "report", "Markdown");
    if (o.html.empty() && o.csv.empty() && o.markdown.empty()) std::cout << render_run_text(data);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("report: " + o.input + ": " + e.what());
  } catch (const json::exception& e) {
    throw std::invalid_argument("report: " + o.input + ": a value is not of the type mskb writes (" + one_line(e.what()) + ")");
  }
}

struct CompareOptions {
  std::vector<std::string> inputs;
  std::string html;
  std::string markdown;
  std::string sweep = "paper";
  std::vector<std::string> labels;  // KEY=NAME
};

// The label of each report: its file name without ".json" (the path where two share a name), or what a
// `--label KEY=NAME` gives, KEY being the report's letter (A, B, ...), its path or its file name.
std::vector<std::string> labels_of(const CompareOptions& o) {
  std::vector<std::string> out;
  for (const auto& p : o.inputs) {
    std::string name = base_name(p);
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) name.resize(name.size() - 5);
    out.push_back(name);
  }
  for (std::size_t i = 0; i < out.size(); ++i)
    for (std::size_t j = 0; j < out.size(); ++j)
      if (i != j && base_name(o.inputs[i]) == base_name(o.inputs[j])) out[i] = o.inputs[i];
  for (const auto& l : o.labels) {
    const auto eq = l.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == l.size())
      throw std::invalid_argument("compare: --label wants KEY=NAME (KEY: A, B, ... or the report's path or file name), got '" + l + "'");
    const std::string key = l.substr(0, eq), name = l.substr(eq + 1);
    bool used = false;
    for (std::size_t i = 0; i < o.inputs.size(); ++i) {
      const std::string letter(1, static_cast<char>('A' + i));
      if (key == letter || key == o.inputs[i] || key == base_name(o.inputs[i])) {
        out[i] = name;
        used = true;
      }
    }
    if (!used) throw std::invalid_argument("compare: --label " + l + ": no report is " + key);
  }
  return out;
}

void run_compare(const CompareOptions& o) {
  std::vector<json> runs;
  for (const auto& p : o.inputs) runs.push_back(read_report(p, "compare"));
  const std::vector<std::string> labels = labels_of(o);
  const json data = compare_data(runs, labels, o.sweep);
  std::vector<std::string> sources;
  for (const auto& p : o.inputs) sources.push_back(base_name(p));
  if (!o.html.empty()) emit(render_compare_html(data, sources), o.html, "compare", "HTML");
  if (!o.markdown.empty()) emit(render_compare_markdown(data), o.markdown, "compare", "Markdown");
  if (o.html.empty() && o.markdown.empty()) std::cout << render_compare_markdown(data);
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  auto* cmd = app.add_subcommand("report", "Render an mskb run/check JSON report as one self-contained HTML page (charts, sortable tables), CSV "
                                           "or Markdown");
  cmd->add_option("report", o->input, "The JSON report (mskb run --json, mskb merge --json)")->required()->check(existing_file());
  cmd->add_option("--html", o->html, "Write the HTML page to FILE (- for stdout)")->type_name("FILE");
  cmd->add_option("--csv", o->csv, "Write one CSV line per contender to FILE (- for stdout)")->type_name("FILE");
  cmd->add_option("--markdown", o->markdown,
                  "Write the Markdown report (as mskb run --markdown writes it, by this version's renderer) to FILE (- for stdout)")
      ->type_name("FILE");
  cmd->footer("Without --html, --csv or --markdown the overview by category is printed.");
  cmd->callback([o] { run_report(*o); });
}

void add_compare_command(CLI::App& app) {
  auto o = std::make_shared<CompareOptions>();
  auto* cmd = app.add_subcommand("compare", "Compare mskb run JSON reports side by side (two submissions, commits or GPUs): deltas of P "
                                            "and vs vendor, a scatter plot, correctness changes");
  cmd->add_option("reports", o->inputs, "Two or more JSON reports; the first is the reference")->required()->expected(2, -1)->check(existing_file());
  cmd->add_option("--html", o->html, "Write the HTML page to FILE (- for stdout)")->type_name("FILE");
  cmd->add_option("--markdown", o->markdown, "Write the Markdown tables to FILE (- for stdout; default: stdout when no --html)")
      ->type_name("FILE");
  cmd->add_option("--sweep", o->sweep, "The sweep whose P and vendor ratio are compared")->type_name("SWEEP")->capture_default_str();
  cmd->add_option("--label", o->labels, "KEY=NAME: call a report NAME (KEY: its letter A, B, ..., its path or file name); repeatable")
      ->type_name("KEY=NAME");
  cmd->callback([o] { run_compare(*o); });
}

}  // namespace mskb::cli
