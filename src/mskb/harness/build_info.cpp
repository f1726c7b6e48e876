#include "mskb/harness/build_info.hpp"

#include "mskb/util/files.hpp"

namespace mskb {

std::string default_arch() {
  const std::string a = MSKB_DEFAULT_ARCH;
  return a.rfind("sm_", 0) == 0 ? a : "sm_" + a.substr(0, a.find_first_of("-;"));
}

std::vector<std::string> arch_family(const std::string& arch) {
  std::string a = arch.empty() ? default_arch() : arch;
  if (a.rfind("sm_", 0) == 0) a = a.substr(3);
  if (!a.empty() && (a.back() == 'a' || a.back() == 'f')) a.pop_back();
  std::vector<std::string> out = {a};
  if (!a.empty() && a.find_first_not_of("0123456789") == std::string::npos && std::stoi(a) >= 90) out.push_back(a + "a");
  return out;
}

std::string tool_version() { return MSKB_VERSION; }

std::string cuda_toolkit_version() { return MSKB_CUDA_VERSION; }

nlohmann::json tool_record(const std::string& tool) {
  return {{"name", tool}, {"version", tool_version()}, {"commit", kGitCommit}, {"cuda", cuda_toolkit_version()}};
}

std::string version_text(const std::string& tool) {
  return tool + " " + MSKB_VERSION + " (commit " + kGitCommit + ")\n" + "CUDA " + MSKB_CUDA_VERSION +
         " (nvcc of the build); kernels compiled for " + default_arch() + " unless --arch says otherwise\n" +
         "data: " + source_root();
}

}  // namespace mskb
