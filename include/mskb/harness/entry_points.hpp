// Owns whether a built kernel exports the entry point the harness will call, told without a GPU
// from the shared object's dynamic symbol table (exported_functions, mskb/harness/binary_policy.hpp):
// `mskb build` fails a kernel that exports none (missing_entry), naming the expected symbol and
// what the file exports instead; an entry point compiled as a C++ function (its name mangled, so
// dlsym cannot find it) is named with the parameters it was compiled with. Host-only.
#pragma once

#include <string>
#include <vector>

#include "mskb/core/task.hpp"

namespace mskb {

struct EntryPoint {
  std::string symbol;     // "vector_add", "vector_add_bf16"
  std::string signature;  // "void vector_add(const float* A, const float* B, float* C, int N)"
};

// The entry points of a task: one per precision it defines (a task file's own, else fp32 and bf16).
std::vector<EntryPoint> task_entry_points(const TaskSpec& spec);

// "" when `exported` (a library's exported functions) holds one of `entries`; otherwise one line,
// "missing_entry: no_entry.cu exports no entry point of task vector_add: extern "C" void
// vector_add(...) or its vector_add_bf16 (it exports: vectoradd; did you mean vector_add?)", or,
// when the entry point is there as a C++ function, "missing_entry: k.cu exports vector_add as a
// C++ function, vector_add(float const*, ...) (its name is mangled: _Z10...): declare it extern "C"
// void vector_add(...)". `kernel` names the file, `whose` the tasks ("task vector_add", "any task").
std::string missing_entry(const std::string& kernel, const std::vector<std::string>& exported, const std::vector<EntryPoint>& entries,
                          const std::string& whose);

}  // namespace mskb
