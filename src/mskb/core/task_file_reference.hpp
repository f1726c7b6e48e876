// Owns a task file's FP64 host reference: its C/C++ source compiled with the host compiler into a
// shared object (cached by content in $MSKB_CACHE_DIR/references), loaded on first use and called
// through the C ABI of mskb/core/abi/mskb_reference.h. Private to src/mskb/core (the reader binds
// a TaskSpec's reference to call_reference; compile_reference, mskb/core/task_file.hpp, builds it now).
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "mskb/core/abi/mskb_reference.h"
#include "mskb/core/task.hpp"

namespace mskb {

// The compiled reference of one task file: built and loaded on first use, shared by the copies of
// its TaskSpec (sanitizer subsets, the registry's entry).
struct TaskFileReference {
  std::string where;   // "FILE:LINE: reference"
  std::string source;  // absolute
  std::vector<std::string> flags;
  std::mutex mu;
  std::string so_path;
  void* handle = nullptr;
  mskb_reference_fn fn = nullptr;
  TaskFileReference() = default;
  TaskFileReference(const TaskFileReference&) = delete;
  TaskFileReference& operator=(const TaskFileReference&) = delete;
  ~TaskFileReference();  // closes the library
};

// Calls the reference (built and loaded on first use) on the instance `a` of shape `s`; throws
// TaskFileError when it cannot be built, std::runtime_error with what the reference reported.
void call_reference(TaskFileReference& r, const std::vector<Param>& params, const Shape& s, Precision p, Args& a);

}  // namespace mskb
