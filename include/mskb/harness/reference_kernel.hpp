// Owns a task file's reference kernel on the parent's side (docs/task-files.md, reference_kernel):
// the user's own CUDA kernel whose outputs are the expected values. It is built with every
// contender's recipe and cache (mskb/harness/compiler.hpp; binary policy applied, `// mskb-link:`
// libraries allowed as for a baseline), must export the entry point of every precision of the
// task, and its shared object travels in every request of the task (RunRequest::reference_library):
// the verifier runs it in a process of its own (mskb/gpu/kernel_reference.cuh). Also the one
// acceptance of a task file (prepare_task_file) that every command taking one applies. Host-only.
#pragma once

#include <string>

#include "mskb/core/task.hpp"
#include "mskb/core/task_file.hpp"
#include "mskb/harness/compiler.hpp"

namespace mskb {

// Builds `file`'s reference kernel with `opt` (a cache hit after the first time) and returns the
// shared object; "" when the file's reference is the FP64 host one. The build is remembered for
// reference_kernel_library. Throws TaskFileError with one line, e.g.
//   "conv1d/task.toml:7: reference_kernel: orig.cu does not compile: orig.cu(12): error: ..."
//   "conv1d/task.toml:7: reference_kernel: orig.cu does not export the fp32 entry point extern "C" void conv1d(...)"
std::string build_reference_kernel(const TaskFile& file, CompileOptions opt = {});

// A task file as `mskb task validate`, `mskb build --task-file` and `mskb run|check --task-file`
// accept it, one set of rules for all: read and validated (every expression at
// every sweep shape), registered (a name that is a built-in task or another file's task is
// refused), its host reference compiled, or its reference kernel built with `opt` and checked to
// export every precision's entry point. Throws TaskFileError with one line naming the file.
const TaskFile& prepare_task_file(const std::string& path, const CompileOptions& opt = {});

// The built reference kernel of `spec` when it is a registered task file's task with a
// reference_kernel (the one build_reference_kernel built, else built now with the default
// options), "" for any other task. Thread-safe.
std::string reference_kernel_library(const TaskSpec& spec);

}  // namespace mskb
