// Owns what a kernel build's compiler output says, read from nvcc's log: every error and warning
// of the CUDA frontend (`k.cu(12): error: ...`, its column taken from the caret line under the
// quoted source), of the host compiler (`k.cu:12:5: warning: ...`), of ptxas, nvlink and nvcc
// (`ptxas error   : ...`) and of the linker; how they are shown (`path:line:col: severity:
// message`, the path relative to the current directory); and the per-function resource usage that
// `-Xptxas=-v` prints (registers, static shared memory, stack frame, spill stores and loads).
// Host-only, no CUDA.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mskb {

struct Diagnostic {
  std::string file;      // as the compiler names it (an absolute path for the kernel and its headers),
                         // or the tool ("ptxas", "nvlink", "nvcc"), or "(link)"
  int line = 0;          // 0: none (a tool's diagnostic)
  std::string severity;  // error | warning | note
  std::string message;
  int column = 0;  // 1-based; 0: the compiler gave none (or it could not be placed in the source)
};

// Every diagnostic of an nvcc log, in order, each once (the host compiler's preprocessor runs
// twice and repeats its warnings). A frontend diagnostic's column comes from its caret line and is
// checked against the source file when that can be read: where the quoted line is not the file's
// (a macro expanded in it) the column is placed by the text after the caret, else left 0.
std::vector<Diagnostic> parse_nvcc_diagnostics(const std::string& log);

// `file` relative to the current directory, e.g. "kernels/k.cu" or "../k.cu"; an absolute path
// when the only way there is through the root, and the name unchanged when it is not a path.
std::string display_path(const std::string& file);
// One line: "kernels/k.cu:12:5: error: message" ("kernels/k.cu:12: ..." without a column;
// "ptxas: error: message" for a tool's diagnostic).
std::string format_diagnostic(const Diagnostic& d);
// {"file" (display_path), "line", "column" (only when known), "severity", "message"}.
nlohmann::json diagnostic_json(const Diagnostic& d);
// How many diagnostics have this severity.
std::size_t count_severity(const std::vector<Diagnostic>& diagnostics, const std::string& severity);

// One function's resources as ptxas reports them with -v (`-Xptxas=-v`).
struct FunctionResources {
  std::string symbol;      // as compiled: "_Z6kernelPKfPfi"
  std::string name;        // demangled: "kernel(float const*, float*, int)"
  std::string arch;        // "sm_90" (entry functions)
  bool entry = false;      // a __global__ function (else a device function with its own frame)
  int registers = -1;      // -1: not reported
  int barriers = -1;
  long shared_bytes = 0;    // static shared memory (smem); dynamic shared memory is the launch's
  long constant_bytes = 0;  // cmem[0]
  long stack_bytes = 0;     // the stack frame: local memory, spills included
  long spill_store_bytes = 0;
  long spill_load_bytes = 0;
};

// The functions of a log built with `-Xptxas=-v`, in the order ptxas compiled them; empty when the
// log has no such report.
std::vector<FunctionResources> parse_resource_usage(const std::string& log);
nlohmann::json resource_usage_json(const std::vector<FunctionResources>& functions);

// A C++ symbol demangled ("_Z1kPf" -> "k(float*)"); the symbol unchanged when it is not one.
std::string demangle(const std::string& symbol);

}  // namespace mskb
