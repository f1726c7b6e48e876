#include "mskb/harness/build_info.hpp"

#include "mskb/util/files.hpp"

namespace mskb {

std::string default_arch() {
  const std::string a = MSKB_DEFAULT_ARCH;
  return a.rfind("sm_", 0) == 0 ? a : "sm_" + a.substr(0, a.find_first_of("-;"));
}

std::string tool_version() { return MSKB_VERSION; }

std::string cuda_toolkit_version() { return MSKB_CUDA_VERSION; }

std::string version_text(const std::string& tool) {
  return tool + " " + MSKB_VERSION + " (commit " + kGitCommit + ")\n" + "CUDA " + MSKB_CUDA_VERSION +
         " (nvcc of the build); kernels compiled for " + default_arch() + " unless --arch says otherwise\n" +
         "data: " + source_root();
}

}  // namespace mskb
