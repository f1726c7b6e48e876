// Owns users' own tasks: a declarative TOML task file (docs/task-files.md) read at run time into a
// TaskSpec that the harness judges exactly like a built-in task (same instances, checks, timing and
// scoring). The file names parameters, shape variables and sweeps, input generators from a small
// vocabulary, tolerances, cost and complexity as expressions (mskb/core/expr.hpp), a baseline
// kernel, and an FP64 reference in C/C++ that is compiled with the host compiler into a shared
// object and called through the C ABI of mskb/core/abi/mskb_reference.h. Host-only.
// The parts: task_file_parse.cpp reads the file (task_file_reader.hpp: the TOML), task_file_model.hpp
// is what it makes of it and evaluates, task_file_reference.hpp the host reference. Registering a
// file (one registry with the built-in tasks) is mskb/core/registry.hpp's.
//
// Every error is one line naming the file, the line and the key:
//   "task.toml:14: params[1].length: unknown variable 'K' at column 3 in 'M*K' (variables: M, N)"
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "mskb/core/task.hpp"

namespace mskb {

struct TaskFileError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Whether this build reads task files (toml++ was found when it was configured).
bool task_files_supported();

struct TaskFileReference;  // the compiled reference (src/mskb/core/task_file_reference.hpp)

struct TaskFile {
  std::string path;                          // as given
  std::string absolute_path;
  TaskSpec spec;                             // name, category, folder (the file's directory, absolute), ...
  std::vector<Precision> precisions;         // the entry points the task defines
  std::map<Precision, std::string> baseline; // absolute kernel paths; a precision may have none
  std::string reference_source;              // absolute; empty with a reference kernel
  std::vector<std::string> reference_flags;  // extra host-compiler flags (e.g. -fopenmp)
  std::shared_ptr<TaskFileReference> reference_state;  // shared with spec.reference; null with a reference kernel
  // `reference_kernel = "orig.cu"` instead of `reference`: the expected outputs are what this CUDA
  // file's entry point computes, on the GPU, in its own process (mskb/gpu/kernel_reference.cuh),
  // built by the parent like a contender (mskb/harness/reference_kernel.hpp). spec.reference then
  // throws: there is no host reference.
  std::string reference_kernel;        // absolute; empty: the FP64 host reference
  std::string reference_precision;     // what it computes in, as the file states: fp64, fp32, tf32, bf16, fp16
  std::string reference_kernel_where;  // "FILE:LINE: reference_kernel", for errors about it
};

// Reads and validates `path` (every expression at every sweep shape). The reference is compiled on
// its first call (compile_reference does it now). Throws TaskFileError.
TaskFile load_task_file(const std::string& path);

// Compiles the task's reference (or finds it in the cache, $MSKB_CACHE_DIR/references, keyed by the
// source, flags, compiler and ABI header), loads it and returns the shared object's path. Throws
// TaskFileError("FILE:LINE: reference: ref.cpp does not compile: <first error>"). A file with a
// reference kernel has no host reference: "" (build_reference_kernel builds the kernel).
std::string compile_reference(const TaskFile& file);

}  // namespace mskb
