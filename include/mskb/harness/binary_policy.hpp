// Owns the binary policy for untrusted kernels: it reads the BUILT shared object (ELF64 x86-64,
// made by nvcc -shared -cudart=shared), not the source, so macros, token pasting and generated
// code cannot hide what the object does. A kernel is refused (disposition rejected_static) when
//   - a dynamic import (an undefined symbol that a relocation binds) is not on the allowlist: the
//     CUDA runtime API minus what lets work outlive the call or reaches outside the evaluation
//     (streams, graphs, host callbacks, device reset/limits/persisting L2, IPC, driver entry
//     points, profiler control), nvcc's registration symbols, and an allowlist of libc / libm /
//     libstdc++ (memory, strings, math, printing, exceptions, containers; never process, file,
//     socket, environment, dynamic loading or thread functions). Anything unknown is refused.
//   - a DT_NEEDED library is not the CUDA runtime or the C/C++ runtime, or the object carries an
//     RPATH/RUNPATH, a writable+executable segment or an executable stack;
//   - host code (every executable PT_LOAD segment; device code lives in .nv_fatbin, which is not
//     executable) contains the bytes of a raw system call: syscall (0f 05), sysenter (0f 34) or
//     int 0x80 (cd 80). Any occurrence is refused, also inside another instruction (code could
//     jump into it); objdump (binutils), when found, names the instruction in the message.
// `libraries` (the kernel's `// mskb-link:` line, when --allow-libraries) widens the allowlist by
// those libraries' own APIs (cublas*, cusparse*, ...) and their DT_NEEDED entries only.
// Vendor contenders are trusted: the policy is not applied to them. Host-only, no dependencies.
#pragma once

#include <string>
#include <vector>

namespace mskb {

struct PolicyOptions {
  std::vector<std::string> libraries;  // whitelisted vendor libraries the kernel may use: cublas, cublasLt, ...
};

struct PolicyViolation {
  std::string kind;              // import | library | code | object
  std::string symbol;            // the imported symbol, the DT_NEEDED library, "syscall at 0x1234", or what is wrong
  std::string reason;            // one line: "creates a stream (work could outlive the call)"
  std::string describe() const;  // "imports cudaStreamCreate: creates a stream (work could outlive the call)"
};

struct PolicyVerdict {
  bool ok = true;
  std::vector<PolicyViolation> violations;  // in file order: imports, then libraries, then code
  std::vector<std::string> notes;           // e.g. "objdump not found: ..." (never a refusal by itself)
  // One line: "imports cudaStreamCreate: creates a stream (work could outlive the call); ..."
  // (at most `max` violations named, then "(and N more)").
  std::string describe(std::size_t max = 3) const;
};

struct ImportVerdict {
  bool allowed = false;
  std::string reason;  // why it is refused (empty when allowed)
};

// One imported symbol (no @version) / one DT_NEEDED entry, classified by name alone.
ImportVerdict classify_import(const std::string& symbol, const std::vector<std::string>& libraries = {});
ImportVerdict classify_needed(const std::string& soname, const std::vector<std::string>& libraries = {});

// Reads the ELF file; a file that is not an ELF64 x86-64 shared object, or is malformed, is refused.
PolicyVerdict check_binary_policy(const std::string& so_path, const PolicyOptions& options = {});

// The functions a shared object exports, as the dynamic loader's dlsym finds them (defined global
// or weak functions of its dynamic symbol table), in table order; read from the file, nothing
// loaded (no GPU, no tool). Throws std::runtime_error("PATH: why") for a file that is not an
// ELF64 x86-64 shared object or is malformed.
std::vector<std::string> exported_functions(const std::string& so_path);

}  // namespace mskb
