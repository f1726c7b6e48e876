// `mskb list`: the tasks, their sweeps and vendor contenders (table or JSON).
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "mskb/util/command_line.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/protocol/request.hpp"  // Shape as JSON

namespace mskb::cli {

namespace {

// The shape dimensions in the order the task declares them (JSON objects are sorted by name).
std::vector<std::string> dim_names(const TaskSpec& t) {
  std::vector<std::string> names;
  for (const auto* sweep : {&t.paper, &t.heldout, &t.large})
    for (const Shape& s : *sweep)
      for (const auto& d : s.dims)
        if (std::find(names.begin(), names.end(), d.first) == names.end()) names.push_back(d.first);
  return names;
}

using json = nlohmann::json;

struct ListOptions {
  std::string task;
  std::string category;
  std::string json;  // FILE, or "-" for stdout
};

// `mskb list TASK`: everything about one task, the long texts in full.
void print_task(const TaskSpec& t) {
  std::cout << fmt::format("{} ({}, tasks/{}/{})\n\n{}\n\n", t.name, t.category, t.category, t.name, t.semantics);
  std::cout << "Entry points:\n";
  for (Precision p : {Precision::fp32, Precision::bf16}) std::cout << "  " << t.signature(p) << ";\n";
  if (!t.vendor.empty())
    std::cout << "Vendor contender: " << t.vendor << "\n";
  else if (!t.vendor_none_reason.empty())
    std::cout << "Vendor contender: none: " << t.vendor_none_reason << "\n";
  else
    std::cout << "Vendor contender: none (the baseline is the only shipped contender)\n";
  if (!t.vendor_abi_cost.empty()) std::cout << "Vendor ABI cost (work the ABI forces on the library route): " << t.vendor_abi_cost << "\n";
  auto sweep = [&](const char* title, const std::vector<Shape>& shapes, bool timed) {
    std::cout << fmt::format("\n{} ({} shapes{}):\n", title, shapes.size(), timed ? ", timed" : ", checked only");
    if (timed) std::cout << fmt::format("  {:<40} {:>14} {:>12} {:>12}  {}\n", "shape", "complexity", "MB (fp32)", "GFLOP", "tolerance fp32 / bf16 (atol, rtol)");
    for (const Shape& s : shapes) {
      if (!timed) {
        std::cout << "  " << s.str() << "\n";
        continue;
      }
      const Cost c = t.cost ? t.cost(s, Precision::fp32) : Cost{};
      const Tolerance f = t.tolerance(s, Precision::fp32), b = t.tolerance(s, Precision::bf16);
      std::cout << fmt::format("  {:<40} {:>14} {:>12.2f} {:>12.3f}  {:.2g}, {:.2g} / {:.2g}, {:.2g}{}\n", s.str(), t.complexity(s),
                               c.bytes / 1e6, c.flops / 1e9, f.atol, f.rtol, b.atol, b.rtol, c.tensor ? " (tensor work)" : "");
    }
  };
  sweep("Paper sweep", t.paper, true);
  sweep("Held-out shapes", t.heldout, false);
  sweep("Large sweep (--sweep large)", t.large, true);
  std::cout << "\nCost model: MB = the minimum DRAM traffic of one call, GFLOP its arithmetic (the roofline); complexity weighs\n"
               "the shapes in P. Every run also checks two random shapes from the task's size space (--shape-seed).\n";
}

// The table's vendor column, cut to keep a line within 100 columns (the full text: list TASK, --json).
std::string short_text(const std::string& s, std::size_t width) {
  return s.size() <= width ? s : s.substr(0, width - 3) + "...";
}

json task_entries(const std::string& category) {
  json out = json::array();
  for (const auto& t : all_tasks()) {
    if (!category.empty() && t.category != category) continue;
    out.push_back({{"name", t.name},
                   {"category", t.category},
                   {"precisions", {"fp32", "bf16"}},
                   {"vendor", t.vendor.empty() ? json(nullptr) : json(t.vendor)},
                   {"vendor_none_reason", t.vendor_none_reason.empty() ? json(nullptr) : json(t.vendor_none_reason)},
                   {"vendor_abi_cost", t.vendor_abi_cost.empty() ? json(nullptr) : json(t.vendor_abi_cost)},
                   {"sweeps", {{"paper", t.paper.size()}, {"heldout", t.heldout.size()}, {"large", t.large.size()}}},
                   {"signature", {{"fp32", t.signature(Precision::fp32)}, {"bf16", t.signature(Precision::bf16)}}},
                   {"dims", dim_names(t)},
                   {"paper_shapes", t.paper},
                   {"heldout_shapes", t.heldout},
                   {"large_shapes", t.large}});
  }
  return out;
}

void run_list(const ListOptions& o) {
  if (!o.task.empty() && o.json.empty()) {
    print_task(get_task(o.task));
    return;
  }
  json out = task_entries(o.task.empty() ? o.category : "");
  if (!o.task.empty()) {
    const TaskSpec& t = get_task(o.task);  // throws for an unknown task
    json one;
    for (const json& e : out)
      if (e["name"] == t.name) one = e;
    out = one;
  }
  if (!o.json.empty()) write_json(out, o.json);
  if (o.json == "-") return;
  if (!o.task.empty()) {
    print_task(get_task(o.task));
    return;
  }
  std::cout << fmt::format("{:<24} {:<11} {:>5} {:>7} {:>5}  {}\n", "task", "category", "paper", "heldout", "large", "vendor");
  for (const auto& t : out)
    std::cout << fmt::format("{:<24} {:<11} {:>5} {:>7} {:>5}  {}\n", t["name"].get<std::string>(), t["category"].get<std::string>(),
                             t["sweeps"]["paper"].get<int>(), t["sweeps"]["heldout"].get<int>(), t["sweeps"]["large"].get<int>(),
                             t["vendor"].is_null() ? "none" : short_text(t["vendor"].get<std::string>(), 41));
  std::cout << out.size() << " tasks x {fp32, bf16}; mskb list TASK shows one in full\n";
}

}  // namespace

void add_list_command(CLI::App& app) {
  auto o = std::make_shared<ListOptions>();
  auto* list = app.add_subcommand("list", "List the tasks");
  list->add_option("task", o->task, "One task in full: semantics, entry points, sweeps, vendor, cost model");
  list->add_option("--category", o->category, "algebra | llm | sparse | scientific")
      ->check(CLI::IsMember({"algebra", "llm", "sparse", "scientific"}));
  add_json_option(list, o->json, "Write the task list (or TASK) as JSON");
  list->callback([o] { run_list(*o); });
}

}  // namespace mskb::cli
