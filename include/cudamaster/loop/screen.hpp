// Owns the integrity screen: static rules a candidate must pass before it is built and run.
// The harness's dynamic checks (guard zones, input checksums, unsynced work, re-checking the
// last timed output) catch what slips through; the screen rejects the obvious cases early and
// explains them, so the Debug agent can fix them. Rules (ids are stable, used in messages):
//   vendor_library   cuBLAS/cuSPARSE/cuFFT/cuDNN/cuRAND/cuSOLVER/cuTENSOR/NPP calls or headers,
//                    CUB device-wide algorithms, Thrust, `// mskb-link:` (unless libraries are allowed)
//   extra_stream     stream or graph creation, launches on a non-default stream, host callbacks
//   host_thread      std::thread, std::async, pthreads, OpenMP, fork
//   file_access      files and directories (fopen, fstreams, open, filesystem, mmap)
//   env_access       getenv, setenv, putenv, system, popen, exec*
//   network_access   sockets, curl, dlopen
//   kept_state       static locals and mutable file-scope variables (host globals, __device__
//                    globals, __managed__) that survive from one call to the next
// Matching runs on the source with comments and string literals blanked, so words in comments
// never trigger a rule.
#pragma once

#include <string>
#include <vector>

namespace cudamaster::loop {

struct ScreenOptions {
  bool allow_libraries = false;
};

struct ScreenViolation {
  std::string rule;     // one of the ids above
  int line = 0;         // 1-based
  std::string excerpt;  // the offending line, trimmed
  std::string message;  // what is wrong and what to do instead
};

struct ScreenResult {
  bool ok = true;
  std::vector<ScreenViolation> violations;
  // "rejected_static: line 12 (vendor_library): ...; line 30 (kept_state): ..."
  std::string describe() const;
};

ScreenResult screen_source(const std::string& source, const ScreenOptions& options);

}  // namespace cudamaster::loop
