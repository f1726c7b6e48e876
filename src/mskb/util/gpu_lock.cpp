#include "mskb/util/gpu_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <time.h>

#include <cerrno>
#include <cstdio>
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

double realtime_s() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// One hold's line (its times taken while it was held, so no two logged exclusive holds overlap),
// appended to the hold log in one write (O_APPEND: lines never mix). A log that
// cannot be written loses the line, never the hold.
void log_hold(const std::string& log, GpuLock::Mode mode, double asked, double held, double released, const std::string& label) {
  char line[320];
  const int n = std::snprintf(line, sizeof line, "%c %.6f %.6f %.6f %ld%s%s\n", mode == GpuLock::Mode::exclusive ? 'x' : 's', asked, held,
                              released, static_cast<long>(::getpid()), label.empty() ? "" : " ", label.c_str());
  if (n <= 0 || n >= static_cast<int>(sizeof line)) return;
  int fd;
  do fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) return;
  [[maybe_unused]] const ssize_t w = ::write(fd, line, static_cast<std::size_t>(n));
  ::close(fd);
}

}  // namespace

GpuLock::GpuLock(std::string path, std::string log_path) : path_(std::move(path)), log_path_(std::move(log_path)) {
  if (path_.empty()) return;
  File main(path_);
  File turnstile(turnstile_path(path_));
}

GpuLock::Guard GpuLock::acquire(Mode mode) const {
  if (path_.empty()) return Guard(-1, mode);
  const double asked = log_path_.empty() ? 0 : realtime_s();
  const std::string t_path = turnstile_path(path_);
  File turnstile(t_path);
  File main(path_);
  // Through the turnstile: behind an exclusive request that waits (it holds the turnstile until
  // it has the lock), never past it.
  turnstile.lock(LOCK_EX, t_path);
  main.lock(mode == Mode::exclusive ? LOCK_EX : LOCK_SH, path_);
  turnstile.lock(LOCK_UN, t_path);
  Guard g(main.take(), mode);
  if (!log_path_.empty()) {
    g.log_ = log_path_;
    g.asked_ = asked;
    g.held_ = realtime_s();
  }
  return g;
}

GpuLock::Guard::Guard(Guard&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      mode_(other.mode_),
      log_(std::move(other.log_)),
      label_(std::move(other.label_)),
      asked_(other.asked_),
      held_(other.held_) {}

void GpuLock::Guard::label(const std::string& text) {
  if (!logged()) return;
  label_ = text.substr(0, 200);
  for (char& c : label_)
    if (c == '\n' || c == '\r') c = ' ';
}

GpuLock::Guard& GpuLock::Guard::operator=(Guard&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
    mode_ = other.mode_;
    log_ = std::move(other.log_);
    label_ = std::move(other.label_);
    asked_ = other.asked_;
    held_ = other.held_;
  }
  return *this;
}

GpuLock::Guard::~Guard() { release(); }

void GpuLock::Guard::release() noexcept {
  if (fd_ < 0) return;
  const double released = log_.empty() ? 0 : realtime_s();
  while (::flock(fd_, LOCK_UN) != 0 && errno == EINTR) {
  }
  ::close(fd_);  // drops the lock anyway
  fd_ = -1;
  if (!log_.empty()) log_hold(log_, mode_, asked_, held_, released, label_);
  log_.clear();
  label_.clear();
}

}  // namespace mskb
