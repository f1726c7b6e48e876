// What a build of the tools is: version, commit, CUDA toolkit, the default GPU architecture of
// kernels, and where the tools read their data (`mskb --version`, `cudamaster --version`).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mskb {

extern const char* const kGitCommit;  // generated at build time (cmake/GitCommit.cmake)

std::string default_arch();  // e.g. "sm_90": what kernels are compiled for without --arch
// The architectures a kernel for `arch` may be compiled for on the same GPU: the plain one, and
// from sm_90 on its architecture-specific 'a' variant ("90" or "sm_90a" -> {"90", "90a"}, "80" ->
// {"80"}); "" is this build's default. What cudamaster's Compiler agent may choose by default.
std::vector<std::string> arch_family(const std::string& arch = "");
std::string tool_version();  // e.g. "0.1.0" (the project's version)
std::string cuda_toolkit_version();  // the CUDA toolkit the tools were built with, e.g. "13.0.48"
// The record of this build that reports and run stores keep (issue 43's provenance):
// {"name": tool, "version", "commit", "cuda"}; mskb::report::code_text renders it.
nlohmann::json tool_record(const std::string& tool);

// Several lines: "<tool> 0.1.0 (commit abc123)", the CUDA toolkit and default architecture, the
// data folder.
std::string version_text(const std::string& tool);

}  // namespace mskb
