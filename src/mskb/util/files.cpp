#include "mskb/util/files.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace mskb {

void write_file_atomic(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status link = fs::symlink_status(path, ec);
  // A link, a device (/dev/null, a terminal), a FIFO or a socket is written through, in place: a
  // rename would replace it with a regular file (as root, `--html /dev/null` replaced the device).
  if (fs::exists(link) && !fs::is_regular_file(link)) {
    if (fs::is_directory(fs::status(path, ec))) throw std::runtime_error("cannot write " + path + ": it is a folder");
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << text;
    f.flush();
    if (!f) throw std::runtime_error("cannot write " + path);
    return;
  }
  // One writer's temporary file per process, so two processes writing the same path do not mix.
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f) {
      fs::remove(tmp, ec);
      throw std::runtime_error("cannot write " + tmp);
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw std::runtime_error("cannot write " + path + ": " + ec.message());
  }
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

