// The compiler's batch side (mskb/harness/compiler.hpp): compile_all through the build pool, and
// the symbols a built library exports.
#include <map>
#include <sstream>
#include <utility>

#include "build_pool.hpp"
#include "mskb/harness/binary_policy.hpp"
#include "mskb/harness/compiler.hpp"

namespace mskb {

std::vector<CompileResult> compile_all(const std::vector<KernelFile>& files, const CompileOptions& opt, int jobs) {
  return compile_all(files, opt, jobs, BuildEvents{});
}

std::vector<CompileResult> compile_all(const std::vector<KernelFile>& files, const CompileOptions& opt, int jobs, const BuildEvents& events) {
  // The pool's jobs by its key (path, trusted): the first index given each.
  std::map<std::pair<std::string, bool>, std::size_t> first;
  for (std::size_t i = 0; i < files.size(); ++i) first.emplace(std::make_pair(files[i].path, files[i].trusted), i);
  std::vector<std::shared_future<CompileResult>> futures;
  {
    BuildPool pool(opt, jobs);
    if (events.started || events.finished)
      pool.observe([&first, &events](const KernelFile& k, const CompileResult* r) {
        const std::size_t i = first.at({k.path, k.trusted});
        if (r == nullptr && events.started) events.started(i);
        if (r != nullptr && events.finished) events.finished(i, *r);
      });
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
