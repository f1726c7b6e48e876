#include "mskb/core/registry.hpp"

#include <algorithm>
#include <stdexcept>

#include "mskb/core/task_file.hpp"
#include "mskb/util/text.hpp"

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
  if (const TaskFile* f = registered_task_file(name)) return &f->spec;  // a user's task file
  return nullptr;
}


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
