// Owns what `mskb build` builds and the line it prints per kernel (build.cpp runs the builds):
// the kernel files of the chosen tasks narrowed to the chosen contender kinds (the adversarial
// corpus only when asked, as in `mskb check --contenders adversarial`), and the per-kernel result
// line with its `[n/total]` count. Pure: no nvcc, no GPU (tests/mskb/cli/build_plan_test.cpp).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "mskb/harness/compiler.hpp"
#include "mskb/protocol/vocabulary.hpp"

namespace mskb::cli {

// `mskb build --contenders` without the option: what a task folder ships (its baselines, vendor
// contender and wrong/ kernels); the corpus in tests/adversarial is left out.
inline constexpr const char* kDefaultBuildContenders = "baseline,vendor,wrong";

// "baseline,vendor,wrong,adversarial" (any of them, comma-separated) or "none" -> the kinds, in
// that order, each once. Throws std::invalid_argument naming an unknown one.
std::vector<ContenderKind> parse_build_contenders(const std::string& list);

// The files to build, sorted and unique by path, and the disposition each wrong/ and adversarial
// kernel declares (`mskb-expect:`).
struct BuildList {
  std::vector<KernelFile> files;
  std::map<std::string, std::string> expect;
};

// The kernels of `tasks` (registered names) of the kinds in `kinds` (baseline and vendor: both
// precisions' files; wrong: the task's wrong/ folder; adversarial: tests/adversarial/<task>),
// plus `extra` files (a task file's reference kernel, --kernel files) as given.
BuildList select_build_files(const std::vector<std::string>& tasks, const std::vector<ContenderKind>& kinds,
                             const std::vector<KernelFile>& extra);

// Whether result `r` of file `path` is a refusal the file declares (`mskb-expect: rejected_static`
// and the binary policy refused it, or `mskb-expect: compile_error` and the build failed).
bool refused_as_declared(const BuildList& list, const std::string& path, const CompileResult& r);

// The lines for one finished build, `done` of `total` (the count right-aligned to the total's
// width): "[ 3/28] ok   tasks/algebra/vector_add/vendor.cu (45.7 s, cached)", then the error
// (when not ok) and each policy note, indented. `shown` is the path as the user should read it.
std::vector<std::string> build_result_lines(std::size_t done, std::size_t total, const std::string& shown, const CompileResult& r,
                                            bool as_declared);

}  // namespace mskb::cli
