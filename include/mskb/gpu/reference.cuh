// Owns the registry of FP64 GPU references (tasks/*/*/reference.cu), used instead of the CPU
// reference where the CPU one would take too long (large GEMMs, attention). Each is checked
// against the CPU reference on small shapes by a gpu-labelled test.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "mskb/core/task.hpp"
#include "mskb/gpu/buffer.cuh"

namespace mskb::gpu {

// Outputs a GPU reference leaves on the device instead of downloading them: the verifier, which
// compares a host-made instance's outputs on its GPU, takes the FP64 expected outputs where the
// reference computed them (for the paper's largest SpMM, 8 GB that no longer cross to the host
// and back). `out[i]`, for output parameter i: rows of the parameter's element count in FP64, or
// empty where that output was downloaded into the Args as usual. Sized to the task's parameter
// count by the caller.
struct DeviceOutputs {
  std::vector<DeviceMemory> out;
};

// Reads the inputs in `a` (host, FP64), writes the outputs like TaskSpec::reference. With `keep`,
// it may hand an output over in keep->out instead (its entry in `a` then stays as it was).
using GpuReferenceFn = void (*)(const Shape&, Precision, Args&, DeviceOutputs* keep);
const std::vector<std::pair<std::string, GpuReferenceFn>>& gpu_references();
GpuReferenceFn find_gpu_reference(const std::string& task);

// An instance on the device for a device reference: each input buffer in its element type
// (in[i]; nullptr for other parameters), each output buffer in FP64 (out[i]: zero for out and
// accumulate, the input's values for inplace; nullptr for inputs and scalars), the element count
// of every buffer and the rounded scalars.
struct DeviceRefArgs {
  std::vector<const void*> in;
  std::vector<double*> out;
  std::vector<std::size_t> elements;
  std::vector<double> scalars;
};
// A reference that reads and writes device memory (the verifier's GPU instances: inputs drawn on
// the GPU never visit the host). Defined with MSKB_DEVICE_REFERENCE, which also defines the
// task's GpuReferenceFn from it.
using DeviceReferenceFn = void (*)(const Shape&, Precision, const DeviceRefArgs&);
const std::vector<std::pair<std::string, DeviceReferenceFn>>& device_references();
DeviceReferenceFn find_device_reference(const std::string& task);
// `fn` on host arguments: inputs uploaded in their element types, outputs downloaded (with `keep`:
// left on the device, in keep->out).
void run_device_reference(const std::string& task, DeviceReferenceFn fn, const Shape& shape, Precision p, Args& args,
                          DeviceOutputs* keep = nullptr);

#if defined(__CUDACC__)
// Element i of a device input in its element type (`bytes`: 4 for float, 2 for bfloat16), as FP64.
__device__ inline double load_input(const void* p, std::size_t i, int bytes) {
  if (bytes == 4) return static_cast<double>(static_cast<const float*>(p)[i]);
  const unsigned int u = static_cast<unsigned int>(static_cast<const unsigned short*>(p)[i]) << 16;
  return static_cast<double>(__uint_as_float(u));
}

// y[i] = f(x[i]) in FP64 for the n elements of a device input x (`bytes` as for load_input): an
// elementwise device reference. F is a functor with a __device__ double operator()(double).
template <class F>
__global__ void map_elementwise_kernel(const void* x, double* y, std::size_t n, int bytes, F f) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    y[i] = f(load_input(x, i, bytes));
}
template <class F>
void map_elementwise(const void* x, double* y, std::size_t n, int bytes, F f) {
  map_elementwise_kernel<<<4096, 256>>>(x, y, n, bytes, f);
}
#endif

}  // namespace mskb::gpu

// The device reference of `task` (see DeviceReferenceFn) and its GpuReferenceFn.
#define MSKB_DEVICE_REFERENCE(task)                                                                                          \
  void mskb_device_reference_##task(const ::mskb::Shape&, ::mskb::Precision, const ::mskb::gpu::DeviceRefArgs&);             \
  void mskb_gpu_reference_##task(const ::mskb::Shape& shape, ::mskb::Precision precision, ::mskb::Args& args,              \
                                 ::mskb::gpu::DeviceOutputs* keep) {                                                        \
    ::mskb::gpu::run_device_reference(#task, &mskb_device_reference_##task, shape, precision, args, keep);                 \
  }                                                                                                                        \
  void mskb_device_reference_##task(const ::mskb::Shape& shape, ::mskb::Precision precision,                                \
                                    const ::mskb::gpu::DeviceRefArgs& args)

// A GPU reference on host arguments; `keep` (may be null): see GpuReferenceFn.
#define MSKB_GPU_REFERENCE(task)                                                                              \
  void mskb_gpu_reference_##task(const ::mskb::Shape& shape, ::mskb::Precision precision, ::mskb::Args& args, \
                                 [[maybe_unused]] ::mskb::gpu::DeviceOutputs* keep)
