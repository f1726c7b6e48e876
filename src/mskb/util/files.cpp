#include "mskb/util/files.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace mskb {

void write_file_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f) throw std::runtime_error("cannot write " + tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw std::runtime_error("cannot write " + path + ": " + ec.message());
}

std::string source_root() {
  const char* e = std::getenv("MSKB_ROOT");
  return e && *e ? e : MSKB_SOURCE_DIR;
}

}  // namespace mskb

