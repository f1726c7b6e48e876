#include "mskb/util/gpu_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace mskb {

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path, int err) {
  throw std::runtime_error("GPU lock " + path + ": " + what + ": " + std::strerror(err));
}

// An open lock file; closing it drops any flock held through it.
class File {
 public:
  explicit File(const std::string& path) {
    do fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    while (fd_ < 0 && errno == EINTR);
    if (fd_ < 0) fail("cannot open", path, errno);
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File() {
    if (fd_ >= 0) ::close(fd_);
  }
  void lock(int op, const std::string& path) const {
    while (::flock(fd_, op) != 0)
      if (errno != EINTR) fail(op == LOCK_UN ? "cannot unlock" : "cannot lock", path, errno);
  }
  int take() { return std::exchange(fd_, -1); }

 private:
  int fd_ = -1;
};

}  // namespace

GpuLock::GpuLock(std::string path) : path_(std::move(path)) {
  if (path_.empty()) return;
  File main(path_);
  File turnstile(turnstile_path(path_));
}

GpuLock::Guard GpuLock::acquire(Mode mode) const {
  if (path_.empty()) return Guard(-1, mode);
  const std::string t_path = turnstile_path(path_);
  File turnstile(t_path);
  File main(path_);
  // Through the turnstile: behind an exclusive request that waits (it holds the turnstile until
  // it has the lock), never past it.
  turnstile.lock(LOCK_EX, t_path);
  main.lock(mode == Mode::exclusive ? LOCK_EX : LOCK_SH, path_);
  turnstile.lock(LOCK_UN, t_path);
  return Guard(main.take(), mode);
}

GpuLock::Guard::Guard(Guard&& other) noexcept : fd_(std::exchange(other.fd_, -1)), mode_(other.mode_) {}

GpuLock::Guard& GpuLock::Guard::operator=(Guard&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
    mode_ = other.mode_;
  }
  return *this;
}

GpuLock::Guard::~Guard() { release(); }

void GpuLock::Guard::release() noexcept {
  if (fd_ < 0) return;
  while (::flock(fd_, LOCK_UN) != 0 && errno == EINTR) {
  }
  ::close(fd_);  // drops the lock anyway
  fd_ = -1;
}

}  // namespace mskb
