// The compute-sanitizer settings (mskb/harness/sanitizer.hpp).
#include "mskb/harness/sanitizer.hpp"

#include <algorithm>
#include <cstdlib>

#include "mskb/harness/compiler.hpp"  // find_cuda_tool

namespace mskb {

std::vector<std::string> sanitizer_wrapper(SanitizerTool tool, const std::string& path) {
  // API errors a contender handles itself (e.g. a cuDNN engine that fails its trial launch and is
  // skipped) are not memory errors; launch errors that matter fail the checks. racecheck:
  // shared-memory hazards (a missing __syncthreads) are errors. --target-processes all: the
  // runner may start a child process that loads and calls the kernel.
  return {path, "--tool", to_string(tool), "--report-api-errors", "no", "--error-exitcode", std::to_string(kSanitizerExitCode),
          "--print-limit", "5", "--target-processes", "all"};
}

std::string find_sanitizer() {
  const char* e = std::getenv("MSKB_SANITIZER");
  return find_cuda_tool("compute-sanitizer", e != nullptr ? e : "");
}

TaskSpec sanitizer_subset(const TaskSpec& spec) {
  auto smallest = [&](std::vector<Shape> shapes, std::size_t n) {
    std::stable_sort(shapes.begin(), shapes.end(), [&](const Shape& a, const Shape& b) { return spec.complexity(a) < spec.complexity(b); });
    if (shapes.size() > n) shapes.resize(n);
    return shapes;
  };
  TaskSpec s = spec;
  s.paper = smallest(spec.paper, 2);
  s.heldout = smallest(spec.heldout, 1);
  s.large.clear();
  s.seeds = 2;
  return s;
}

}  // namespace mskb
