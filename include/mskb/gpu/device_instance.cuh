// Owns the candidate's device-side copy of one instance: guarded buffers, pristine copies of
// inplace inputs and the argument slots of the call (candidate.cu, and profile mode). New inputs
// go into the same buffers (the second seed of a shape runs on the same device pointers), and
// what the kernel left goes back to the verifier through an OutputTarget.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "mskb/core/instance.hpp"
#include "mskb/core/invoke.hpp"
#include "mskb/core/task.hpp"
#include "mskb/gpu/buffer.cuh"

namespace mskb::gpu {

// Where what the kernel left goes for the verifier: outputs and read-only inputs into `data` (the
// host output region, or a device region of the same layout that the verifier maps through CUDA
// IPC), guard zones into the host region `host`.
struct OutputTarget {
  unsigned char* data = nullptr;
  cudaMemcpyKind kind = cudaMemcpyDeviceToHost;
  unsigned char* host = nullptr;
};

// Device-side copy of one instance: guarded buffers, pristine copies of inplace inputs, and the
// argument slots for the call. Re-uploading new inputs keeps every device pointer (the second
// seed of a shape runs on the same buffers: a kernel that keys a cache on its pointers fails).
struct DeviceInstance {
  const TaskSpec* spec = nullptr;
  Precision precision = Precision::fp32;
  InstanceLayout layout;
  std::vector<std::unique_ptr<GuardedBuffer>> bufs;
  std::vector<std::unique_ptr<DeviceMemory>> pristine;
  std::vector<Slot> slots;

  DeviceInstance(const TaskSpec& s, Precision p, InstanceLayout l, const std::vector<double>& scalars);

  bool fits(const InstanceLayout& l) const;

  // New inputs into the same buffers (and scalars into the same slots); guards re-armed. `input`:
  // laid out like the input region, in host memory (the sealed region) or, with
  // cudaMemcpyDeviceToDevice, in the verifier's staging copy mapped through CUDA IPC.
  void upload(const unsigned char* input, const std::vector<double>& scalars, cudaMemcpyKind kind = cudaMemcpyHostToDevice);

  // Outside any timed region: poison overwrite outputs, zero accumulate outputs, restore inplace.
  void reset();

  // Every written buffer into the output region `to` (the host region, or the device region the
  // verifier maps), on a non-blocking stream: when called before the device synchronize, work the
  // entry point left running on other streams is NOT waited for.
  void copy_outputs(const OutputTarget& to) const;

  // After the device synchronize: read-only inputs as the kernel left them (into `to`), and the
  // guard zones (always into the host region).
  void copy_inputs_and_guards(const OutputTarget& to) const;
  void copy_all(const OutputTarget& to) const {
    copy_outputs(to);
    copy_inputs_and_guards(to);
  }
};

}  // namespace mskb::gpu
