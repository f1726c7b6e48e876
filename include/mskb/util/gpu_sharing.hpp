// Owns the check that a timing ran alone on its GPU: which other processes hold a context on the
// device (NVML, loaded at run time with dlopen; no link or header dependency). Another process
// time-slicing the GPU slows every sample alike, so the noise test does not see it (seen on the
// H200: a baseline 5-125x slow at 18 shapes, 16 of them below the 2% noise limit, while a test
// ran beside it).
// Our own entry is found by difference (the process list before and after this process creates
// its context), not by PID, which a container's PID namespace can hide. Host-only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mskb {

// Pure parts, for tests: the entries that appeared between `before` and `after` (ours), and the
// entries of `now` that are not ours, sorted and unique.
std::vector<uint64_t> appeared(std::vector<uint64_t> before, std::vector<uint64_t> after);
std::vector<uint64_t> others(std::vector<uint64_t> now, const std::vector<uint64_t>& own);

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" from the 16 bytes of a CUDA device UUID.
std::string uuid_string(const unsigned char (&bytes)[16]);

class GpuSharing {
 public:
  // Opens NVML for the device with this UUID; unavailable (known() false) where NVML, the
  // device or the process list cannot be had.
  explicit GpuSharing(const std::string& uuid);
  ~GpuSharing();
  GpuSharing(const GpuSharing&) = delete;
  GpuSharing& operator=(const GpuSharing&) = delete;

  // Call right after this process created its context: the entries that appeared since the
  // constructor are ours. With none (NVML lists no processes here), known() turns false.
  void context_created();
  bool known() const { return known_; }
  // PIDs (as NVML reports them) of the other processes with a context on the device now; empty
  // when not known.
  std::vector<uint64_t> others_now();

 private:
  bool list(std::vector<uint64_t>& pids);
  struct Nvml;
  std::unique_ptr<Nvml> nvml_;
  std::vector<uint64_t> before_, own_;
  bool known_ = false;
};

}  // namespace mskb
