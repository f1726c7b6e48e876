#include "mskb/core/registry.hpp"

#include <algorithm>
#include <stdexcept>

namespace mskb {

std::vector<std::string> validate(const TaskSpec& s) {
  std::vector<std::string> problems;
  auto need = [&](bool ok, const std::string& what) {
    if (!ok) problems.push_back(s.name + ": " + what);
  };
  need(!s.semantics.empty(), "semantics is empty");
  need(!s.params.empty(), "no parameters");
  need(!s.paper.empty(), "paper sweep is empty");
  need(!s.heldout.empty(), "held-out shapes are empty");
  need(!s.large.empty(), "large sweep is empty");
  need(static_cast<bool>(s.generate), "no generator");
  need(static_cast<bool>(s.reference), "no reference");
  need(static_cast<bool>(s.tolerance), "no tolerance");
  need(static_cast<bool>(s.complexity), "no complexity");
  need(static_cast<bool>(s.cost), "no cost model");
  need(s.seeds >= 3, "fewer than 3 correctness seeds");
  bool has_output = false;
  for (const auto& p : s.params)
    if (p.is_buffer && p.role != Role::in) has_output = true;
  need(has_output, "no output parameter");
  for (const auto& h : s.heldout)
    for (const auto& q : s.paper) need(!(h == q), "held-out shape " + h.str() + " is also in the paper sweep");
  return problems;
}

const std::vector<TaskSpec>& all_tasks() {
  static const std::vector<TaskSpec> tasks = [] {
    std::vector<TaskSpec> v;
    for_each_task_definition([&](const char* name, const char* category, const char* folder, TaskDefinitionFn fn) {
      TaskSpec s;
      s.name = name;
      s.category = category;
      s.folder = folder;
      fn(s);
      auto problems = validate(s);
      if (!problems.empty()) throw std::logic_error("invalid task spec: " + problems.front());
      v.push_back(std::move(s));
    });
    static const char* order[] = {"algebra", "llm", "sparse", "scientific"};
    auto rank = [](const std::string& c) {
      for (int i = 0; i < 4; ++i)
        if (c == order[i]) return i;
      return 4;
    };
    std::sort(v.begin(), v.end(), [&](const TaskSpec& a, const TaskSpec& b) {
      return rank(a.category) != rank(b.category) ? rank(a.category) < rank(b.category) : a.name < b.name;
    });
    return v;
  }();
  return tasks;
}

const TaskSpec* find_task(const std::string& name) {
  for (const auto& t : all_tasks())
    if (t.name == name) return &t;
  return nullptr;
}

namespace {
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
}  // namespace

const TaskSpec& get_task(const std::string& name) {
  if (const TaskSpec* t = find_task(name)) return *t;
  std::string best;
  std::size_t best_d = 4;
  for (const auto& t : all_tasks()) {
    const std::size_t d = edit_distance(name, t.name);
    if (d < best_d) best_d = d, best = t.name;
  }
  throw std::invalid_argument("unknown task '" + name + "'" +
                              (best.empty() ? std::string(" (mskb list shows the tasks)") : " (did you mean '" + best + "'?)"));
}

}  // namespace mskb
