// Owns the task registry, one for every task: the built-in TaskSpecs discovered from tasks/ (CMake
// generates the list) and the tasks of users' task files registered at run time
// (mskb/core/task_file.hpp reads a file; registering it makes its task one of these).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mskb/core/task.hpp"
#include "mskb/core/task_file.hpp"

namespace mskb {

using TaskDefinitionFn = void (*)(TaskSpec&);
using TaskDefinitionSink =
    std::function<void(const char* name, const char* category, const char* folder, TaskDefinitionFn)>;
// Implemented by the generated registry source.
void for_each_task_definition(const TaskDefinitionSink& add);

// All tasks, sorted by category then name; validated once (throws std::logic_error on a bad spec).
const std::vector<TaskSpec>& all_tasks();
// find_task/get_task also find the tasks of registered task files.
const TaskSpec* find_task(const std::string& name);
// Throws std::invalid_argument("unknown task 'x' (did you mean 'y'?)").
const TaskSpec& get_task(const std::string& name);

// Registering a task file makes find_task/get_task find its task by name (all_tasks() stays the
// built-in ones) and sets its spec's `file`. The same file (absolute path) is read once; a name that
// is a built-in task or another file's task is an error (TaskFileError).
const TaskFile& register_task_file(const std::string& path);
// The registered task file of a task name, or nullptr (for a name from a report; a TaskSpec in hand
// carries its file: spec.file).
const TaskFile* registered_task_file(const std::string& task_name);
// The task a run request names: get_task(name) when `task_file` is empty, else the task of that file
// (registered on first use); throws when the file's task is not named `name`. The runner's processes
// resolve every request with it (each process reads the file once, when it first meets it).
const TaskSpec& resolve_task(const std::string& name, const std::string& task_file);

}  // namespace mskb
