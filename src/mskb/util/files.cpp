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
  if (const char* e = std::getenv("MSKB_ROOT"); e && *e) return e;
  // Installed (`cmake --install`): PREFIX/bin/<tool> reads PREFIX/share/mskb.
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path share = exe.parent_path().parent_path() / "share" / "mskb";
    if (std::filesystem::is_directory(share / "tasks", ec)) return share.string();
  }
  return MSKB_SOURCE_DIR;  // a build tree: the sources it was built from
}

}  // namespace mskb

