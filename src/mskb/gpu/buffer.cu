#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "mskb/gpu/buffer.cuh"

namespace mskb::gpu {

DeviceMemory::DeviceMemory(std::size_t bytes) : bytes_(bytes) {
  if (bytes) MSKB_CUDA_CHECK(cudaMalloc(&ptr_, bytes));
}
DeviceMemory::~DeviceMemory() {
  if (ptr_) MSKB_CUDA_CHECK_NOEXCEPT(cudaFree(ptr_));
}
DeviceMemory::DeviceMemory(DeviceMemory&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) {
  o.ptr_ = nullptr;
  o.bytes_ = 0;
}
DeviceMemory& DeviceMemory::operator=(DeviceMemory&& o) noexcept {
  if (this != &o) {
    if (ptr_) MSKB_CUDA_CHECK_NOEXCEPT(cudaFree(ptr_));
    ptr_ = o.ptr_;
    bytes_ = o.bytes_;
    o.ptr_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}

namespace {
std::size_t round_up(std::size_t x, std::size_t a) { return (x + a - 1) / a * a; }
}  // namespace

GuardedBuffer::GuardedBuffer(std::size_t bytes, std::size_t guard_bytes)
    : mem_(guard_bytes ? guard_bytes + round_up(bytes ? bytes : 1, 256) + guard_bytes : bytes),
      bytes_(bytes),
      padded_(guard_bytes ? round_up(bytes ? bytes : 1, 256) : bytes),
      guard_(guard_bytes) {}

void GuardedBuffer::arm_guards() {
  if (!guard_) return;
  auto* base = static_cast<unsigned char*>(mem_.get());
  MSKB_CUDA_CHECK(cudaMemsetAsync(base, kPoisonByte, guard_, 0));
  // The tail guard starts right after the buffer's last byte (padding included).
  MSKB_CUDA_CHECK(cudaMemsetAsync(base + guard_ + bytes_, kPoisonByte, padded_ - bytes_ + guard_, 0));
}

bool GuardedBuffer::guards_intact() const {
  if (!guard_) return true;
  const auto* base = static_cast<const unsigned char*>(mem_.get());
  const std::size_t tail = padded_ - bytes_ + guard_;
  std::vector<unsigned char> h(guard_ + tail);
  MSKB_CUDA_CHECK(cudaMemcpy(h.data(), base, guard_, cudaMemcpyDeviceToHost));
  MSKB_CUDA_CHECK(cudaMemcpy(h.data() + guard_, base + guard_ + bytes_, tail, cudaMemcpyDeviceToHost));
  for (unsigned char c : h)
    if (c != kPoisonByte) return false;
  return true;
}

void GuardedBuffer::copy_guards(unsigned char* host) const {
  if (!guard_) return;
  const auto* base = static_cast<const unsigned char*>(mem_.get());
  MSKB_CUDA_CHECK(cudaMemcpy(host, base, guard_, cudaMemcpyDeviceToHost));
  MSKB_CUDA_CHECK(cudaMemcpy(host + guard_, base + guard_ + bytes_, guard_, cudaMemcpyDeviceToHost));
}

IpcMapping::IpcMapping(const std::string& handle_hex) {
  cudaIpcMemHandle_t h{};
  if (handle_hex.size() != 2 * sizeof h) throw std::invalid_argument("not a CUDA IPC handle");
  auto nibble = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    throw std::invalid_argument("not a CUDA IPC handle");
  };
  auto* bytes = reinterpret_cast<unsigned char*>(&h);
  for (std::size_t i = 0; i < sizeof h; ++i)
    bytes[i] = static_cast<unsigned char>(nibble(handle_hex[2 * i]) * 16 + nibble(handle_hex[2 * i + 1]));
  MSKB_CUDA_CHECK(cudaIpcOpenMemHandle(&ptr_, h, cudaIpcMemLazyEnablePeerAccess));
}
IpcMapping::~IpcMapping() {
  if (ptr_) MSKB_CUDA_CHECK_NOEXCEPT(cudaIpcCloseMemHandle(ptr_));
}
IpcMapping::IpcMapping(IpcMapping&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)) {}
IpcMapping& IpcMapping::operator=(IpcMapping&& o) noexcept {
  if (this != &o) {
    if (ptr_) MSKB_CUDA_CHECK_NOEXCEPT(cudaIpcCloseMemHandle(ptr_));
    ptr_ = std::exchange(o.ptr_, nullptr);
  }
  return *this;
}

std::string ipc_handle_hex(const DeviceMemory& m) {
  cudaIpcMemHandle_t h{};
  MSKB_CUDA_CHECK(cudaIpcGetMemHandle(&h, m.get()));
  static const char* digits = "0123456789abcdef";
  std::string out;
  const auto* bytes = reinterpret_cast<const unsigned char*>(&h);
  for (std::size_t i = 0; i < sizeof h; ++i) {
    out += digits[bytes[i] >> 4];
    out += digits[bytes[i] & 15];
  }
  return out;
}

}  // namespace mskb::gpu
