// Owns the task registry: every TaskSpec discovered from tasks/ (CMake generates the list).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mskb/core/task.hpp"

namespace mskb {

using TaskDefinitionFn = void (*)(TaskSpec&);
using TaskDefinitionSink =
    std::function<void(const char* name, const char* category, const char* folder, TaskDefinitionFn)>;
// Implemented by the generated registry source.
void for_each_task_definition(const TaskDefinitionSink& add);

// All tasks, sorted by category then name; validated once (throws std::logic_error on a bad spec).
const std::vector<TaskSpec>& all_tasks();
// find_task/get_task also find the tasks of registered task files (mskb/core/task_file.hpp).
const TaskSpec* find_task(const std::string& name);
// Throws std::invalid_argument("unknown task 'x' (did you mean 'y'?)").
const TaskSpec& get_task(const std::string& name);
// Problems with a spec (empty when valid): missing functions, empty sweeps, bad params.
std::vector<std::string> validate(const TaskSpec& spec);

}  // namespace mskb
