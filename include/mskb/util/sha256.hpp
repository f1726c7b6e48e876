// Owns content hashing (SHA-256) for the kernel build cache. Depends on nothing.
#pragma once

#include <cstdint>
#include <string>

namespace mskb {

class Sha256 {
 public:
  Sha256();
  Sha256& update(const void* data, std::size_t n);
  Sha256& update(const std::string& s) { return update(s.data(), s.size()); }
  std::string hex();  // finalizes

 private:
  void block(const unsigned char* p);
  uint32_t h_[8];
  unsigned char buf_[64];
  std::size_t buf_len_ = 0;
  uint64_t total_ = 0;
};

std::string sha256_hex(const std::string& s);

}  // namespace mskb
