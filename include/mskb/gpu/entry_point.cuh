// Owns the candidate's calls of the entry point: loading it from the kernel library, one checked
// call (any CUDA error it leaves is fatal for the candidate), and the cold-cache timing (L2
// flushed, outputs reset and inplace inputs restored before every sample, outside the events).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "mskb/core/task.hpp"
#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/device_instance.cuh"
#include "mskb/protocol/request.hpp"

namespace mskb::gpu {

// The entry point `symbol` of the kernel library (dlopen, never closed); CandidateFatal
// launch_error when the library does not load, missing_entry when it lacks the symbol.
void* load_entry(const std::string& library, const std::string& symbol, const TaskSpec& spec, Precision p);

struct CallOutcome {
  double gap_us = 0;   // host time in cudaDeviceSynchronize after the legacy stream was idle
  double call_us = 0;  // host time from the call to the legacy stream being idle
};

// Calls the entry point; any CUDA error it leaves behind is fatal for this process. With
// `snapshot_to`, the outputs are copied as soon as the legacy stream is idle, before the device
// synchronize (the copies are not part of the gap).
CallOutcome call_checked(void* fn, const DeviceInstance& d, const OutputTarget* snapshot_to = nullptr);

// Cold L2 before every sample: a write of 2x the L2 size, and persisting lines reset (a kernel
// cannot keep its data resident across samples through an access-policy window).
class L2Flusher {
 public:
  L2Flusher();
  void flush() {
    MSKB_CUDA_CHECK(cudaCtxResetPersistingL2Cache());
    MSKB_CUDA_CHECK(cudaMemsetAsync(mem_.get(), ++value_ & 0xff, mem_.bytes(), 0));
  }

 private:
  DeviceMemory mem_;
  int value_ = 0;
};

struct RawTiming {
  std::vector<double> samples, walls, gaps;
  double sm_clock_mhz = 0;
  double warmup_s = 0, sampling_s = 0;  // where the timing's wall time went (diagnostics only)
};

// Cold-cache timing: before each sample (outside the timed region) outputs are reset, inplace
// inputs restored and L2 flushed; CUDA events bracket only the entry point on the legacy stream.
// After sample i, `after_sample(i)` may look at the outputs (returns false to stop).
RawTiming time_entry(void* fn, DeviceInstance& d, const TimingConfig& cfg, L2Flusher& l2, const std::function<bool(int)>& after_sample);

}  // namespace mskb::gpu
