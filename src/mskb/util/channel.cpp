#include "mskb/util/channel.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010
#endif
#ifndef MFD_ALLOW_SEALING
#define MFD_ALLOW_SEALING 0x0002U
#endif
#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif

namespace mskb {

namespace {
constexpr std::size_t kMaxMessage = 4u << 20;  // a timing result carries up to a few thousand samples
constexpr int kMaxFds = 4;

std::runtime_error sys_error(const std::string& what) { return std::runtime_error(what + ": " + std::strerror(errno)); }
}  // namespace

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

std::pair<Channel, Channel> Channel::make_pair() {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) throw sys_error("socketpair");
  for (int s : sv) {
    const int size = static_cast<int>(kMaxMessage);
    ::setsockopt(s, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    ::setsockopt(s, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  }
  return {Channel(UniqueFd(sv[0])), Channel(UniqueFd(sv[1]))};
}

void Channel::send(const nlohmann::json& body, const std::vector<int>& fds) const {
  const std::string text = body.dump();
  if (text.size() > kMaxMessage) throw std::runtime_error("channel message too large");
  if (fds.size() > static_cast<std::size_t>(kMaxFds)) throw std::runtime_error("too many descriptors in one message");
  iovec iov{const_cast<char*>(text.data()), text.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
  if (!fds.empty()) {
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  while (true) {
    const ssize_t n = ::sendmsg(fd_.get(), &msg, MSG_NOSIGNAL);
    if (n == static_cast<ssize_t>(text.size())) return;
    if (n < 0 && errno == EINTR) continue;
    throw sys_error("channel send");
  }
}

bool Channel::recv(Message& m) const {
  std::string buf(kMaxMessage, '\0');
  iovec iov{buf.data(), buf.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  do n = ::recvmsg(fd_.get(), &msg, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == ECONNRESET || errno == EPIPE)) return false;
  if (n < 0) throw sys_error("channel receive");
  m.fds.clear();
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
      m.fds.emplace_back(fd);
    }
  }
  if (n == 0) return false;  // the peer closed its end
  if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) throw std::runtime_error("channel message truncated");
  buf.resize(static_cast<std::size_t>(n));
  m.body = nlohmann::json::parse(buf, nullptr, false);
  if (m.body.is_discarded() || !m.body.is_object()) throw std::runtime_error("malformed channel message");
  return true;
}

SharedRegion SharedRegion::create(const std::string& name, std::size_t bytes) {
  SharedRegion r;
  r.fd_ = UniqueFd(::memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!r.fd_) throw sys_error("memfd_create");
  if (::ftruncate(r.fd_.get(), static_cast<off_t>(bytes)) != 0) throw sys_error("ftruncate of a shared region");
  r.bytes_ = bytes;
  r.mapped_ = bytes == 0 ? 1 : bytes;
  if (bytes == 0 && ::ftruncate(r.fd_.get(), 1) != 0) throw sys_error("ftruncate of a shared region");
  r.addr_ = ::mmap(nullptr, r.mapped_, PROT_READ | PROT_WRITE, MAP_SHARED, r.fd_.get(), 0);
  if (r.addr_ == MAP_FAILED) {
    r.addr_ = nullptr;
    throw sys_error("mmap of a shared region");
  }
  return r;
}

SharedRegion SharedRegion::map(UniqueFd fd, std::size_t bytes, bool writable) {
  SharedRegion r;
  r.fd_ = std::move(fd);
  r.bytes_ = bytes;
  r.mapped_ = bytes == 0 ? 1 : bytes;
  const off_t size = ::lseek(r.fd_.get(), 0, SEEK_END);
  if (size < static_cast<off_t>(r.mapped_)) throw std::runtime_error("shared region smaller than announced");
  r.addr_ = ::mmap(nullptr, r.mapped_, PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED, r.fd_.get(), 0);
  if (r.addr_ == MAP_FAILED) {
    r.addr_ = nullptr;
    throw sys_error("mmap of a received region");
  }
  return r;
}

void SharedRegion::seal() {
  // Remap read-only first: F_SEAL_WRITE would refuse while a writable shared mapping exists;
  // F_SEAL_FUTURE_WRITE (Linux 5.1) forbids new writable mappings and write(2) from now on.
  if (::mprotect(addr_, mapped_, PROT_READ) != 0) throw sys_error("mprotect of a shared region");
  if (::fcntl(fd_.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE) != 0) throw sys_error("sealing a shared region");
}

void SharedRegion::unmap() {
  if (addr_ != nullptr) ::munmap(addr_, mapped_);
  addr_ = nullptr;
}

SharedRegion::~SharedRegion() { unmap(); }

SharedRegion::SharedRegion(SharedRegion&& o) noexcept
    : fd_(std::move(o.fd_)), addr_(o.addr_), bytes_(o.bytes_), mapped_(o.mapped_) {
  o.addr_ = nullptr;
}

SharedRegion& SharedRegion::operator=(SharedRegion&& o) noexcept {
  if (this != &o) {
    unmap();
    fd_ = std::move(o.fd_);
    addr_ = o.addr_;
    bytes_ = o.bytes_;
    mapped_ = o.mapped_;
    o.addr_ = nullptr;
  }
  return *this;
}

}  // namespace mskb
