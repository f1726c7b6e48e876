// `mskb list`: the tasks, their sweeps and vendor contenders (table or JSON).
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/harness/protocol.hpp"  // Shape as JSON

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
  std::string category;
  bool json = false;
};

json task_entries(const std::string& category) {
  json out = json::array();
  for (const auto& t : all_tasks()) {
    if (!category.empty() && t.category != category) continue;
    out.push_back({{"name", t.name},
                   {"category", t.category},
                   {"precisions", {"fp32", "bf16"}},
                   {"vendor", t.vendor.empty() ? json(nullptr) : json(t.vendor)},
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
  const json out = task_entries(o.category);
  if (o.json) {
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("{:<24} {:<11} {:>5} {:>7} {:>5}  {}\n", "task", "category", "paper", "heldout", "large", "vendor");
  for (const auto& t : out)
    std::cout << fmt::format("{:<24} {:<11} {:>5} {:>7} {:>5}  {}\n", t["name"].get<std::string>(), t["category"].get<std::string>(),
                             t["sweeps"]["paper"].get<int>(), t["sweeps"]["heldout"].get<int>(), t["sweeps"]["large"].get<int>(),
                             t["vendor"].is_null() ? "none" : t["vendor"].get<std::string>());
  std::cout << out.size() << " tasks x {fp32, bf16}\n";
}

}  // namespace

void add_list_command(CLI::App& app) {
  auto o = std::make_shared<ListOptions>();
  auto* list = app.add_subcommand("list", "List the tasks");
  list->add_option("--category", o->category, "algebra | llm | sparse | scientific")
      ->check(CLI::IsMember({"algebra", "llm", "sparse", "scientific"}));
  list->add_flag("--json", o->json, "JSON output");
  list->callback([o] { run_list(*o); });
}

}  // namespace mskb::cli
