// Owns writing result files so that a reader never sees half of one: the text goes to
// PATH.tmp.PID, then replaces PATH by rename (reports rewritten while a run goes on, summaries,
// HTML pages). A PATH that is a link replaces the file it names the same way (the link stays); a
// device (/dev/null, /dev/stdout's terminal), a FIFO or a socket is written through in place
// instead (a rename would replace it). Host-only.
#pragma once

#include <string>

namespace mskb {

// Throws std::runtime_error with a one-line message if the file cannot be written.
void write_file_atomic(const std::string& path, const std::string& text);

// Where the tools read their data (tasks, kernel headers, prompts, demo, docs): $MSKB_ROOT;
// else PREFIX/share/mskb when the executable is installed as PREFIX/bin/<tool>; else the source
// tree this binary was built from.
std::string source_root();

}  // namespace mskb
