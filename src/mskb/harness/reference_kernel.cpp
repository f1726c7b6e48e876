#include "mskb/harness/reference_kernel.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <vector>

#include "mskb/core/registry.hpp"
#include "mskb/harness/compiler.hpp"

namespace fs = std::filesystem;

namespace mskb {

namespace {

struct Built {
  std::mutex mu;
  std::map<std::string, std::string> so;  // task file (absolute) -> its reference kernel's .so
};
Built& built() {
  static Built b;
  return b;
}

}  // namespace

std::string build_reference_kernel(const TaskFile& file, CompileOptions opt) {
  if (file.reference_kernel.empty()) return "";
  const std::string name = fs::path(file.reference_kernel).filename().string();
  opt.binary_policy = true;    // the user's code, screened like a baseline
  opt.allow_libraries = true;  // and, like a baseline, it may link what `// mskb-link:` names
  const CompileResult r = compile_kernel(file.reference_kernel, opt);
  if (!r.ok)
    throw TaskFileError(file.reference_kernel_where + ": " + name + (r.refused_policy ? " is refused: " : " does not compile: ") + r.error);
  // Every entry point the task defines: the verifier calls the one of the precision it checks.
  const std::vector<std::string> symbols = exported_symbols(r.so_path);
  if (!symbols.empty())  // empty: nm could not read it (the runner then names a missing entry point)
    for (Precision p : file.precisions)
      if (std::find(symbols.begin(), symbols.end(), file.spec.symbol(p)) == symbols.end())
        throw TaskFileError(file.reference_kernel_where + ": " + name + " does not export the " + to_string(p) + " entry point " +
                            file.spec.signature(p));
  std::lock_guard<std::mutex> lock(built().mu);
  built().so[file.absolute_path] = r.so_path;
  return r.so_path;
}

const TaskFile& prepare_task_file(const std::string& path, const CompileOptions& opt) {
  const TaskFile& tf = register_task_file(path);  // read, validated, the name checked against every other task
  (void)compile_reference(tf);                    // the host reference compiles (a file with a reference kernel has none)
  (void)build_reference_kernel(tf, opt);          // or the reference kernel builds and exports every entry point
  return tf;
}

std::string reference_kernel_library(const TaskSpec& spec) {
  const TaskFile* f = spec.file;
  if (!f || f->reference_kernel.empty()) return "";
  {
    std::lock_guard<std::mutex> lock(built().mu);
    const auto it = built().so.find(f->absolute_path);
    if (it != built().so.end()) return it->second;
  }
  return build_reference_kernel(*f);
}

}  // namespace mskb
