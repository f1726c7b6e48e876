// The compiler's batch side (mskb/harness/compiler.hpp): compile_all through the build pool, and
// the symbols a built library exports.
#include "build_pool.hpp"
#include "mskb/harness/binary_policy.hpp"
#include "mskb/harness/compiler.hpp"

namespace mskb {

std::vector<CompileResult> compile_all(const std::vector<KernelFile>& files, const CompileOptions& opt, int jobs) {
  std::vector<std::shared_future<CompileResult>> futures;
  {
    BuildPool pool(opt, jobs);
    for (const auto& f : files) futures.push_back(pool.submit(f));
    pool.start();
  }  // joins the workers
  std::vector<CompileResult> out;
  for (auto& f : futures) out.push_back(f.get());
  return out;
}

std::vector<std::string> exported_symbols(const std::string& so_path) {
  try {
    return exported_functions(so_path);  // the ELF's dynamic symbol table (binary_policy.hpp)
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace mskb
