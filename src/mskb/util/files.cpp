#include "mskb/util/files.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <system_error>

namespace mskb {

namespace {

bool under(const std::filesystem::path& p, const char* root) { return p.string().rfind(root, 0) == 0; }

// The path a write to `path` lands on: its links followed one by one (relative targets against the
// link's folder), also when the last one dangles, so that the file a link names is replaced by
// rename in its own folder and the link stays a link. nullopt where a link in the chain is in /dev
// or /proc (/dev/stdout, /proc/self/fd/N): those name open files, a pipe ("pipe:[N]") or a
// terminal, not paths to rename over; `path` is then written through as it is.
std::optional<std::filesystem::path> follow_links(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path p = path;
  for (int hops = 0; hops < 40; ++hops) {  // the kernel's own limit on nested links
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec))) return p;
    if (under(p, "/dev/") || under(p, "/proc/")) return std::nullopt;
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) throw std::runtime_error("cannot write " + path + ": " + ec.message());
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  throw std::runtime_error("cannot write " + path + ": too many levels of symbolic links");
}

}  // namespace

void write_file_atomic(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::optional<fs::path> followed = follow_links(path);
  const fs::path dest = followed.value_or(fs::path(path));
  const fs::file_status st = fs::status(dest, ec);
  if (fs::is_directory(st)) throw std::runtime_error("cannot write " + path + ": it is a folder");
  // A device (/dev/null, a terminal), a FIFO, a socket, or an open file named through /dev or /proc
  // (`--markdown /dev/stdout`) is written through, in place: a rename would replace it with a
  // regular file (as root, `--html /dev/null` replaced the device).
  if (!followed || (fs::exists(st) && !fs::is_regular_file(st))) {
    std::ofstream f(dest, std::ios::binary | std::ios::trunc);
    f << text;
    f.flush();
    if (!f) throw std::runtime_error("cannot write " + path);
    return;
  }
  // One writer's temporary file per process, so two processes writing the same path do not mix;
  // beside the final file, so the rename stays within one file system.
  const std::string tmp = dest.string() + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f) {
      fs::remove(tmp, ec);
      throw std::runtime_error("cannot write " + tmp);
    }
  }
  fs::rename(tmp, dest, ec);
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

