// The confinement of an nvcc build of an untrusted kernel file (issue 40, item 2): nvcc and its
// children (cudafe++, cicc, ptxas, fatbinary, the host compiler, the assembler and linker) run
// under Landlock, reading only the toolkit, the system's include and library folders, the kernel's
// own folder, kernels/include and the -I/-L folders of the command, and writing only a private
// build folder (its TMPDIR too). An `#include` or an `.incbin` of a host file then fails with
// "Permission denied" (the contents are never read), which the build's error names in one line.
// A preprocessing screen (absolute and `..` includes, `.incbin`, `#embed`) is a belt on top,
// never the defence: a macro or a split string gets past it, not past Landlock. Host-only.
#pragma once

#include <string>
#include <vector>

#include "mskb/util/sandbox.hpp"

namespace mskb {

// "" or why the source may not be built (one line, naming the directive and its line, never a
// file's contents).
std::string screen_host_file_references(const std::string& source);

struct BuildConfinement {
  std::string dir;                 // the private build folder (created; the caller removes it)
  std::string tmp;                 // its TMPDIR
  sandbox::LandlockRuleset rules;  // applied in the build's child (restrict_self)
  std::string level;               // "landlock-7" or "none (landlock: ...)", for the record
};

// Prepares the confinement of a build whose output goes under `parent` (the kernel cache):
// `cmd` is the nvcc command (its -I/-L folders become readable), `cu_path` the kernel file.
BuildConfinement confine_build(const std::string& parent, const std::string& name, const std::string& cu_path,
                               const std::vector<std::string>& cmd, const std::vector<std::string>& extra_read);

// "" or, when the build was refused a file (the log's "X: Permission denied"), one line saying so.
std::string explain_refused_read(const std::string& log);

}  // namespace mskb
