// Owns writing result files so that a reader never sees half of one: the text goes to
// PATH.tmp, then replaces PATH by rename (reports rewritten while a run goes on, summaries,
// HTML pages). Host-only.
#pragma once

#include <string>

namespace mskb {

// Throws std::runtime_error with a one-line message if the file cannot be written.
void write_file_atomic(const std::string& path, const std::string& text);

// $MSKB_ROOT, else the source tree this binary was built from (tasks, kernels, prompts).
std::string source_root();

}  // namespace mskb
