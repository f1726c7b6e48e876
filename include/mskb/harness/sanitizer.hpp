// Owns the compute-sanitizer settings every sanitized run shares (mskb check --memcheck /
// --racecheck, mskb run --sanitize's gate, cudamaster's acceptance gate): the command that wraps
// the runner, where the binary is, and the shapes a gate checks.
#pragma once

#include <string>
#include <vector>

#include "mskb/core/task.hpp"
#include "mskb/protocol/vocabulary.hpp"

namespace mskb {

// The compute-sanitizer command that wraps the runner (EvalOptions::wrapper) for `tool`, `path`
// the sanitizer binary: API errors the contender handles itself are not reported, errors exit
// with kSanitizerExitCode, and every process the runner starts is instrumented too
// (--target-processes all: the kernel may run in a child of the runner). `mskb check --memcheck`
// and cudamaster's acceptance gate use the same command.
std::vector<std::string> sanitizer_wrapper(SanitizerTool tool, const std::string& path);
// compute-sanitizer: $MSKB_SANITIZER, PATH, $CUDA_HOME/bin, next to nvcc, /usr/local/cuda/bin;
// empty when there is none.
std::string find_sanitizer();
// The shapes the sanitizer gates check (cudamaster's acceptance and `mskb run --sanitize`): the
// two smallest paper shapes and the smallest held-out shape (by complexity), no large sweep.
inline constexpr const char* kSanitizerShapes = "the two smallest paper shapes and the smallest held-out shape, two seeds each";
TaskSpec sanitizer_subset(const TaskSpec& spec);

}  // namespace mskb
