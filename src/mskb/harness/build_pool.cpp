// The compiler's batch side (mskb/harness/compiler.hpp): compile_all through the build pool, and
// the symbols a built library exports.
#include <sstream>

#include "build_pool.hpp"
#include "mskb/harness/compiler.hpp"
#include "mskb/util/process.hpp"

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
  std::string out;
  if (run_command({"nm", "-D", "--defined-only", so_path}, out, 30) != 0) return {};
  std::vector<std::string> syms;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    const auto sp = line.rfind(' ');
    if (sp != std::string::npos && line.size() > sp + 1 && line[sp - 1] == 'T') syms.push_back(line.substr(sp + 1));
  }
  return syms;
}

}  // namespace mskb
