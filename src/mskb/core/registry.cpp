#include "mskb/core/registry.hpp"

#include <algorithm>
#include <filesystem>
#include <list>
#include <mutex>
#include <stdexcept>

#include "mskb/core/task_file.hpp"
#include "mskb/util/text.hpp"

namespace fs = std::filesystem;

namespace mskb {

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

namespace {

// The tasks of registered task files: read once each, never removed (a TaskSpec's `file` points
// into this list for the life of the process).
struct UserTasks {
  std::mutex mu;
  std::list<TaskFile> files;
};
UserTasks& user_tasks() {
  static UserTasks u;
  return u;
}

}  // namespace

const TaskFile& register_task_file(const std::string& path) {
  std::error_code ec;
  const std::string abs = fs::weakly_canonical(fs::absolute(path), ec).string();
  {
    std::lock_guard<std::mutex> lock(user_tasks().mu);
    for (const TaskFile& f : user_tasks().files)
      if (f.absolute_path == abs) return f;
  }
  TaskFile tf = load_task_file(path);
  for (const TaskSpec& t : all_tasks())
    if (t.name == tf.spec.name)
      throw TaskFileError(path + ": name '" + tf.spec.name + "' is a built-in task (choose another name)");
  std::lock_guard<std::mutex> lock(user_tasks().mu);
  for (const TaskFile& f : user_tasks().files) {
    if (f.absolute_path == tf.absolute_path) return f;
    if (f.spec.name == tf.spec.name)
      throw TaskFileError(path + ": name '" + tf.spec.name + "' is already the task of " + f.path);
  }
  user_tasks().files.push_back(std::move(tf));
  TaskFile& stored = user_tasks().files.back();
  stored.spec.file = &stored;
  return stored;
}

const TaskFile* registered_task_file(const std::string& task_name) {
  std::lock_guard<std::mutex> lock(user_tasks().mu);
  for (const TaskFile& f : user_tasks().files)
    if (f.spec.name == task_name) return &f;
  return nullptr;
}

const TaskSpec& resolve_task(const std::string& name, const std::string& task_file) {
  if (task_file.empty()) return get_task(name);
  const TaskFile& f = register_task_file(task_file);
  if (f.spec.name != name) throw TaskFileError(task_file + " defines task '" + f.spec.name + "', not '" + name + "'");
  return f.spec;
}

}  // namespace mskb
