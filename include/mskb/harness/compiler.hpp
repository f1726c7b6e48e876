// Owns building kernel files: nvcc -> shared object, cached by content hash (source, local
// includes, flags, libraries, compiler version), with compile errors returned as structured
// diagnostics. Candidates link only the CUDA runtime unless libraries are allowed; a file asks
// for libraries with a line `// mskb-link: cublas cusparse` (whitelist: cublas, cublasLt,
// cusparse, cufft, cudnn, curand).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mskb/harness/binary_policy.hpp"
#include "mskb/harness/diagnostics.hpp"  // Diagnostic, parse_nvcc_diagnostics
#include "mskb/protocol/vocabulary.hpp"
#include "mskb/util/files.hpp"  // source_root

namespace mskb {

struct CompileOptions {
  std::string arch = "";               // "90" -> sm_90, "90a" -> sm_90a; empty = build default
  std::vector<std::string> flags;      // extra nvcc flags, each checked by check_flag (part of the cache key)
  bool lineinfo = false;               // -lineinfo (for profiling)
  bool allow_libraries = false;        // honour `// mskb-link:` (always true for baseline/vendor)
  std::string cache_dir;               // empty = default_cache_dir()
  // Apply the binary policy (mskb/binary_policy.hpp) to the built object, also on a cache hit:
  // set for every untrusted kernel (user files, baselines, wrong/ kernels, candidates), never for
  // vendor contenders. With allow_libraries the `// mskb-link:` libraries widen the allowlist.
  bool binary_policy = false;
  double timeout_s = 300;
  int nice = 0;  // added to nvcc's nice value (SpawnOptions::nice); not part of the cache key
};

// How a build ended, typed: the judge turns it into a disposition without reading messages.
enum class CompileOutcome {
  built,            // ok: so_path holds the library
  missing_file,     // the kernel file does not exist (harness_error)
  refused_request,  // the request broke a rule before nvcc ran: a flag off the whitelist, an
                    // unknown or disallowed `// mskb-link:` library (rejected_static)
  refused_policy,   // built, then refused by the binary policy (rejected_static)
  compile_error,    // nvcc failed or timed out (compile_error)
  build_failed,     // the build could not run or its output could not be stored (compile_error)
};

struct CompileResult {
  bool ok = false;
  CompileOutcome outcome = CompileOutcome::build_failed;  // built exactly when ok
  bool cache_hit = false;
  std::string so_path;
  std::string key;
  double seconds = 0;
  std::vector<Diagnostic> diagnostics;  // every error and warning (also of a cached build: its log is kept)
  std::vector<std::string> libraries;
  std::string log;      // nvcc output (warnings on success; kept with the cached object)
  std::string error;    // one line, when !ok
  // How the nvcc build was confined ("landlock-7", "none (landlock: ...)"); empty on a cache hit.
  std::string confinement;
  // The binary policy's verdict (binary_policy set and the build succeeded): a refusal makes the
  // result not ok with refused_policy set and error "rejected_static: imports X: reason; ...".
  bool policy_checked = false;
  bool refused_policy = false;
  std::vector<PolicyViolation> policy_violations;
  std::vector<std::string> policy_notes;
};

CompileResult compile_kernel(const std::string& cu_path, const CompileOptions& opt);

// The architectures this toolkit's nvcc compiles for ("75", "80", ..., from `nvcc --list-gpu-arch`,
// asked once), in numeric order; empty when it cannot tell (then nothing is checked against it).
std::vector<std::string> toolkit_gpu_archs();

// The local headers (#include "x") a kernel file reaches, transitively: each resolved next to the
// file that includes it, else in kernels/include (nvcc's -I), each once in the order first met;
// absolute paths. All are part of the cache key (editing one, also one a header includes,
// rebuilds), and a report records them with its kernel files so mskb rerun sees a changed one.
std::vector<std::string> local_include_files(const std::string& cu_path);

// A kernel file to build (and judge): the unit of compile_all and of the suite's build pool.
struct KernelFile {
  std::string path;
  std::string contender;  // "baseline", "vendor", "wrong/<stem>", "adversarial/<stem>" or the file's stem (contender_kind)
  bool trusted = false;   // shipped with the task: may link vendor libraries
  // Judged on this precision only when it builds and exports the entry point (a submission's
  // TASK.cu on bf16); otherwise left out of the run (no entry in the report).
  bool optional = false;
};

// Builds `files` with `jobs` parallel nvcc processes (0 = all cores), each path once; results in
// the order of `files`. Trusted files may link vendor libraries; every file but a vendor
// contender's passes the binary policy.
std::vector<CompileResult> compile_all(const std::vector<KernelFile>& files, const CompileOptions& opt, int jobs);
// compile_all, telling as it goes (`mskb build`'s progress): `started(i)` as the build of files[i]
// begins, `finished(i, result)` as it ends, both from the build threads (so thread safe, and they
// must not throw); a path given twice is built once, under its first index.
struct BuildEvents {
  std::function<void(std::size_t index)> started;
  std::function<void(std::size_t index, const CompileResult& result)> finished;
};
std::vector<CompileResult> compile_all(const std::vector<KernelFile>& files, const CompileOptions& opt, int jobs, const BuildEvents& events);

// The functions a built library exports (exported_functions: its dynamic symbol table, read in
// process); empty when it cannot be read.
std::vector<std::string> exported_symbols(const std::string& so_path);

// The policy verdict of a build, as `mskb build --json` and the run store carry it:
// {"ok": bool, "violations": [{"kind", "symbol", "reason"}], "notes": [...]}; null when not applied.
nlohmann::json policy_to_json(const CompileResult& r);

std::vector<std::string> requested_libraries(const std::string& source);
// The extra nvcc flags a build takes (mskb build/run/check --nvcc-flag, cudamaster's recipes):
// an allowlist of forms that change code generation, diagnostics or ptxas's report and nothing
// the build's confinement and cache rely on (nvcc_flags.cpp lists them). Throws
// std::invalid_argument with one line naming the flag and why it is refused: include folders and
// forced includes (the build reads only the kernel's folder and kernels/include, and the cache key
// covers only those headers), outputs (-o, -odir, -keep, dependency files), the toolchain and
// linking (-ccbin, -Xlinker, -l, -L, -Xcompiler beyond warnings and optimization), the target
// (-arch, -gencode: --arch chooses it).
void check_flag(const std::string& flag);

std::string default_cache_dir();  // $MSKB_CACHE_DIR, else $XDG_CACHE_HOME/mskb, else ~/.cache/mskb
std::string nvcc_path();          // $MSKB_NVCC, else the configured CUDA compiler
std::string nvcc_version();       // `nvcc --version`, cached per process
// A CUDA toolkit program (compute-sanitizer, ncu): `explicit_path` if it contains a '/' (and is
// executable), else that name or `name` on PATH, then in $CUDA_HOME/bin, next to nvcc_path(), and
// in /usr/local/cuda/bin. Empty when none is found.
std::string find_cuda_tool(const std::string& name, const std::string& explicit_path = "");

}  // namespace mskb
