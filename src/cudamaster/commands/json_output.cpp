// Where a command's --json goes (mskb::add_json_option): stdout for "-", else the file.
#include <string>

#include <fmt/format.h>

#include "commands/commands.hpp"
#include "mskb/util/files.hpp"

namespace cudamaster::cli {

void write_json_output(const std::string& text, const std::string& path) {
  if (path == "-") {
    fmt::print("{}\n", text);
    return;
  }
  mskb::write_file_atomic(path, text + "\n");
}

}  // namespace cudamaster::cli
