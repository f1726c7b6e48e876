// Owns the templates of `mskb task new NAME`: a commented task.toml (an elementwise task,
// y = scale * x + bias), its ref.cpp and baseline.cu; `mskb check --task-file NAME/task.toml`
// passes on them as written (docs/task-files.md).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace mskb::cli {

// The files (name, text) of a new task folder for task NAME. Throws std::invalid_argument when NAME
// is not a C identifier (it is the entry point's name).
std::vector<std::pair<std::string, std::string>> new_task_files(const std::string& name);

}  // namespace mskb::cli
