// Owns the candidate's device-time measurement: CUPTI's activity records (kernels, copies, sets)
// of a few extra calls of the entry point after a shape's timed samples, so that a report can show
// the GPU's share of the call time beside it (mskb/protocol/device_time.hpp: the arithmetic).
// CUPTI is loaded at run time (dlopen; the harness runs where it is missing, and then says why),
// initialised in the candidate's context step before the seccomp filter goes on (its buffer
// thread and files are set up while the process may still create them), and recording only
// around the extra calls: the timed samples run with every activity kind off.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mskb/gpu/device_instance.cuh"
#include "mskb/gpu/entry_point.cuh"
#include "mskb/protocol/request.hpp"

namespace mskb::gpu {

// The CUPTI library to load: MSKB_CUPTI_LIBRARY when set, else the first file that exists of
// libcupti.so.<CUDA major> next to the CUDA runtime this process uses, in the toolkit's
// extras/CUPTI/lib64 above it, and in /usr/local/cuda's; "" when none does (the dynamic loader
// then searches for the soname). Reads the file system only (the candidate calls it before
// Landlock, to allow the folder it names).
std::string find_cupti_library();

// CUPTI activity recording in this process (one at a time: CUPTI's callbacks are global). The
// constructor loads `library` (or the soname), registers the buffer callbacks and enables, flushes
// and disables the recorded kinds once; it never throws: available() false and why() say what
// failed. The destructor disables every kind and flushes.
class DeviceActivity {
 public:
  explicit DeviceActivity(const std::string& library);
  ~DeviceActivity();
  DeviceActivity(const DeviceActivity&) = delete;
  DeviceActivity& operator=(const DeviceActivity&) = delete;

  bool available() const { return ok_; }
  const std::string& why() const { return why_; }

  // The recorded kinds on for the lifetime of a Recording (off again when it ends).
  class Recording {
   public:
    explicit Recording(DeviceActivity& a);
    ~Recording();
    Recording(const Recording&) = delete;
    Recording& operator=(const Recording&) = delete;
    bool ok() const { return ok_; }

   private:
    DeviceActivity& a_;
    bool ok_ = false;
  };

  // CUPTI's clock (ns), the clock of its activity records.
  std::uint64_t now_ns() const;
  // Every record since the last call delivered (forced flush; the caller synchronized the device
  // first), and the time they cover within [from_ns, to_ns] (mskb::busy_ns). False, with `why`,
  // when CUPTI failed or delivered a record without its timestamps.
  bool busy_between(std::uint64_t from_ns, std::uint64_t to_ns, std::uint64_t& busy, std::string& why);

 private:
  bool enable_kinds(std::string& why);
  void disable_kinds();
  bool ok_ = false;
  bool owner_ = false;  // this object holds the process's CUPTI callbacks
  std::string why_;
};

struct DeviceSamples {
  std::vector<double> device_us, call_us;  // paired: the device time and the call time of each extra call
  std::string note;                        // why there are none (empty when there are)
  double seconds = 0;                      // what the extra calls took, wall clock
};

// Up to `count` extra calls of the entry point prepared as the timed samples are (outputs reset,
// in-place inputs restored, L2 flushed, device synchronized), each between CUDA events as a
// sample is and recorded by `a`; after the first, no more once `budget_s` is spent. A CUDA error
// is fatal for the candidate, as in the timed samples.
DeviceSamples time_device(void* fn, DeviceInstance& d, const TimingConfig& cfg, L2Flusher& l2, DeviceActivity& a, int count,
                          double budget_s);

}  // namespace mskb::gpu
