// Owns the verifier's GPU instances: for tasks whose inputs are uniform draws (UniformInputs) and
// whose reference works on device memory (MSKB_DEVICE_REFERENCE), large shapes never go through
// host FP64 buffers. The verifier draws the inputs on its own GPU context with the counter
// generator (the same values as the CPU twin), computes the FP64 reference there and compares
// there the outputs the candidate left in a device region the verifier maps (CUDA IPC). Only the
// typed inputs travel to the host (the sealed input region the candidate uploads from).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "mskb/core/generators.hpp"
#include "mskb/core/instance.hpp"
#include "mskb/core/task.hpp"
#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/reference.cuh"

namespace mskb::gpu {

class GpuInstance {
 public:
  // `draw`: the instance's uniform draw (draw_uniform); `scalars`: its scalars as rounded for the
  // candidate (make_inputs' rounding).
  GpuInstance(const TaskSpec& spec, Precision p, const Shape& shape, const UniformDraw& draw, const std::vector<double>& scalars,
              DeviceReferenceFn reference);
  // An instance made on the host (inputs in the sealed input region laid out by `l`, the FP64
  // expected outputs in `expected`), put on the verifier's GPU to be compared there: its read-only
  // inputs (typed) and expected outputs are uploaded once, then every comparison of its outputs is
  // made on the GPU (compare / mutated_input with the candidate's device region). `kept`: expected
  // outputs the GPU reference left on this GPU (DeviceOutputs), taken over instead of uploaded
  // from `expected`.
  GpuInstance(const TaskSpec& spec, Precision p, const InstanceLayout& l, const std::vector<std::size_t>& elements,
              const unsigned char* input_region, const Args& expected, DeviceOutputs* kept = nullptr);
  // The typed inputs into the input region laid out by `l` (instance_layout of the draw's elements).
  void download_inputs(const InstanceLayout& l, unsigned char* input_region) const;
  // The same bytes into `staging`, a device allocation of this GPU laid out like the input region
  // (grown to l.input_bytes when smaller): a copy the candidate may map through CUDA IPC and read
  // its inputs from, device to device. The instance's own inputs, which its comparisons trust, are
  // never exported. Complete when it returns.
  void stage_inputs(const InstanceLayout& l, DeviceMemory& staging) const;
  // Compares every output in `output_region` with the expected outputs, as compare_encoded would:
  // the same counts and largest errors, without the first mismatches (a failing check gets them
  // from expected_on_host() and the host comparison).
  // `on_device`: `output_region` is device memory of this GPU (the candidate's device output
  // region mapped through CUDA IPC): compared where it is, nothing crosses to the host.
  CompareResult compare(const InstanceLayout& l, const unsigned char* output_region, Tolerance tol, bool on_device = false) const;
  // The first read-only input whose bytes in the device output region differ from the inputs this
  // instance drew (the candidate's copy of what the kernel left in it), or "" when none does.
  std::string mutated_input(const InstanceLayout& l, const unsigned char* device_region) const;
  // The expected outputs in FP64 on the host (empty entries for inputs and scalars).
  Args expected_on_host() const;

 private:
  const TaskSpec& spec_;
  Precision p_;
  std::vector<std::size_t> elements_;
  std::vector<DeviceMemory> in_, out_;
  std::size_t scratch_bytes_ = 1;
  mutable DeviceMemory scratch_, stats_, flag_;
};

// Where the verifier's instances may live on its GPU: a task with uniform inputs and a device
// reference, no user matrix.
bool gpu_instance_possible(const TaskSpec& spec, const Shape& shape);

// Whether the outputs of any instance of the task can be compared on the verifier's GPU (the
// comparison kernels know its buffers' element types).
bool gpu_compare_possible(const TaskSpec& spec);

}  // namespace mskb::gpu
