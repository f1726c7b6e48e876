// Owns device memory for the harness: RAII allocations, and guarded buffers whose
// front and back guard zones hold the poison pattern so that out-of-bounds writes are detected
// after the call and out-of-bounds reads pull NaN / -1 into the result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mskb/gpu/check.cuh"

namespace mskb::gpu {

class DeviceMemory {
 public:
  DeviceMemory() = default;
  explicit DeviceMemory(std::size_t bytes);
  ~DeviceMemory();
  DeviceMemory(DeviceMemory&& o) noexcept;
  DeviceMemory& operator=(DeviceMemory&& o) noexcept;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// A device allocation of another process on this GPU, mapped into ours through CUDA IPC (the
// verifier reads the candidate's device output region this way: no host round trip). Closed on
// destruction; the exporting process keeps the allocation until we have closed it.
class IpcMapping {
 public:
  IpcMapping() = default;
  // `handle_hex`: ipc_handle_hex() of the exporting process. Throws CudaError when it cannot be
  // opened, std::invalid_argument when it is not a handle.
  explicit IpcMapping(const std::string& handle_hex);
  ~IpcMapping();
  IpcMapping(IpcMapping&& o) noexcept;
  IpcMapping& operator=(IpcMapping&& o) noexcept;
  IpcMapping(const IpcMapping&) = delete;
  IpcMapping& operator=(const IpcMapping&) = delete;
  const unsigned char* get() const { return static_cast<const unsigned char*>(ptr_); }
  explicit operator bool() const { return ptr_ != nullptr; }

 private:
  void* ptr_ = nullptr;
};

// The IPC handle of an allocation (its base pointer), as hex text for the JSON channel.
std::string ipc_handle_hex(const DeviceMemory& m);

constexpr unsigned char kPoisonByte = 0xFF;  // f32 0xFFFFFFFF and bf16 0xFFFF are NaN, i32 is -1
constexpr std::size_t kDefaultGuardBytes = 64 * 1024;

class GuardedBuffer {
 public:
  // guard_bytes = 0 turns the guards off (under compute-sanitizer, which needs exact bounds).
  GuardedBuffer(std::size_t bytes, std::size_t guard_bytes);
  void* data() const { return static_cast<unsigned char*>(mem_.get()) + guard_; }
  std::size_t bytes() const { return bytes_; }
  // Fills both guard zones with the poison byte (async on the legacy stream).
  void arm_guards();
  // True when both guard zones still hold only the poison byte.
  bool guards_intact() const;
  std::size_t guard_bytes() const { return guard_; }
  // Copies the front guard zone and the first guard_bytes() after the buffer's end to `host`
  // (2 * guard_bytes() bytes): the verifier checks them, not this process.
  void copy_guards(unsigned char* host) const;

 private:
  DeviceMemory mem_;
  std::size_t bytes_;
  std::size_t padded_;
  std::size_t guard_;
};

}  // namespace mskb::gpu
