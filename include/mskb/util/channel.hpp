// Owns the private channel between the verifier (the trusted mskb-runner process that holds the
// report pipe) and the candidate (the process that loads the kernel library): JSON messages over
// a SOCK_SEQPACKET socket pair with file descriptors passed alongside (SCM_RIGHTS), and shared
// memory regions (memfd) through which inputs go to the candidate and outputs come back. The
// candidate never sees the report pipe; the verifier compares outputs in its own address space.
// Host-only (no CUDA headers); unit-tested across a real fork.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mskb {

// An owned file descriptor (closed on destruction).
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd();
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  int get() const { return fd_; }
  int release() {
    const int f = fd_;
    fd_ = -1;
    return f;
  }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

struct Message {
  nlohmann::json body;
  std::vector<UniqueFd> fds;
};

// One end of the socket pair. Messages are whole (SOCK_SEQPACKET keeps their boundaries).
class Channel {
 public:
  Channel() = default;
  explicit Channel(UniqueFd fd) : fd_(std::move(fd)) {}
  // Two connected ends; both close-on-exec (the one handed to a child is duplicated for it).
  static std::pair<Channel, Channel> make_pair();
  // Throws std::runtime_error when the peer is gone.
  void send(const nlohmann::json& body, const std::vector<int>& fds = {}) const;
  // Blocks; false when the peer closed its end (or died). Throws on a malformed message.
  bool recv(Message& m) const;
  int fd() const { return fd_.get(); }
  UniqueFd& handle() { return fd_; }

 private:
  UniqueFd fd_;
};

// A shared memory region (memfd). The creator maps it read-write; `seal()` forbids any later
// write through any mapping or descriptor (F_SEAL_FUTURE_WRITE), so a region handed to the
// candidate as input cannot be changed by it. Other processes map it from the passed fd.
class SharedRegion {
 public:
  SharedRegion() = default;
  // Creates a region of `bytes` (at least one page is mapped even for 0 bytes).
  static SharedRegion create(const std::string& name, std::size_t bytes);
  // Maps a region received as `fd` (read-only or read-write).
  static SharedRegion map(UniqueFd fd, std::size_t bytes, bool writable);
  ~SharedRegion();
  SharedRegion(SharedRegion&& o) noexcept;
  SharedRegion& operator=(SharedRegion&& o) noexcept;
  SharedRegion(const SharedRegion&) = delete;
  SharedRegion& operator=(const SharedRegion&) = delete;

  void seal();  // no more writes by anyone; the creator's mapping becomes read-only
  unsigned char* data() const { return static_cast<unsigned char*>(addr_); }
  std::size_t bytes() const { return bytes_; }
  int fd() const { return fd_.get(); }

 private:
  void unmap();
  UniqueFd fd_;
  void* addr_ = nullptr;
  std::size_t bytes_ = 0, mapped_ = 0;
};

}  // namespace mskb
