// Owns the registry of FP64 GPU references (tasks/*/*/reference.cu), used instead of the CPU
// reference where the CPU one would take too long (large GEMMs, attention). Each is checked
// against the CPU reference on small shapes by a gpu-labelled test. Compiled by nvcc, it also
// holds the device pieces the references share (load_input, map_elementwise, ChunkedSum).
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

// The term "element i of a device input" (load_input) for ChunkedSum.
struct InputTerm {
  const void* p;
  int bytes;
  __device__ double operator()(std::size_t i) const { return load_input(p, i, bytes); }
};

namespace detail {
constexpr std::size_t kSumChunk = std::size_t{1} << 16;  // chunked_sum's default chunk
constexpr unsigned kSumWarpsPerBlock = 4;

// One warp per chunk c: partial[c] = term(lo) + ... + term(hi - 1), added in index order from 0.0.
// The lanes form the terms of 32 consecutive indices (coalesced loads); every lane then adds the
// segment's terms in lane order (broadcast by shuffles), so all lanes carry the same sequential
// sum. The last segment of the last chunk may hold fewer than 32 terms.
template <class Term>
__global__ void chunk_sums_kernel(Term term, std::size_t n, std::size_t chunks, double* partial) {
  const std::size_t c = (blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x) / 32;
  if (c >= chunks) return;  // a whole warp: blockDim.x is a multiple of 32
  const unsigned lane = threadIdx.x % 32;
  const std::size_t lo = c * kSumChunk, hi = n - lo < kSumChunk ? n : lo + kSumChunk;
  double acc = 0.0;
  for (std::size_t seg = lo; seg < hi; seg += 32) {  // the same trip count in every lane
    const std::size_t i = seg + lane;
    const double t = i < hi ? term(i) : 0.0;
    const int count = hi - seg < 32 ? static_cast<int>(hi - seg) : 32;  // terms in this segment, >= 1
#pragma unroll
    for (int j = 0; j < 32; ++j) {
      const double v = __shfl_sync(0xffffffffu, t, j);
      if (j < count) acc = __dadd_rn(acc, v);
    }
  }
  if (lane == 0) partial[c] = acc;
}

// One thread: the chunk sums added in chunk order from 0.0, then finish(total).
template <class Finish>
__global__ void add_chunk_sums_kernel(const double* partial, std::size_t chunks, Finish finish) {
  double total = 0.0;
  for (std::size_t c = 0; c < chunks; ++c) total = __dadd_rn(total, partial[c]);
  finish(total);
}

struct StoreTotal {
  double* out;
  __device__ void operator()(double total) const { *out = total; }
};
}  // namespace detail

// chunked_sum (mskb/util/parallel.hpp) on the device, bit for bit: the sum of term(i) over [0, n)
// as chunks of 2^16 consecutive indices, each chunk's terms added in index order from 0.0, then the
// chunk sums added in chunk order from 0.0, with unfused correctly rounded adds (__dadd_rn). A term
// is rounded as the Term computes it: for the CPU's bits, a Term uses the CPU term's operations in
// its order, unfused (__dmul_rn, __dsub_rn, ...). Term: a functor with
// `__device__ double operator()(std::size_t i) const`, called once for each i < n.
// The launches go to the default stream, and the result lands in device memory (later kernels read
// it there: no host round trip). Owns the chunk sums (one FP64 each); its destructor waits for the
// device before freeing them. No atomics: the same bits on every run.
class ChunkedSum {
 public:
  static constexpr std::size_t kChunk = detail::kSumChunk;
  explicit ChunkedSum(std::size_t n)
      : n_(n), chunks_((n + detail::kSumChunk - 1) / detail::kSumChunk), partial_(chunks_ * sizeof(double)) {}
  ~ChunkedSum() { MSKB_CUDA_CHECK_NOEXCEPT(cudaDeviceSynchronize()); }
  ChunkedSum(const ChunkedSum&) = delete;
  ChunkedSum& operator=(const ChunkedSum&) = delete;

  std::size_t chunks() const { return chunks_; }
  // Device: chunk_sums' results, one per chunk.
  double* partials() const { return static_cast<double*>(partial_.get()); }

  // partials()[c] = the sum of chunk c's terms, for every chunk.
  template <class Term>
  void chunk_sums(const Term& term) {
    if (chunks_ == 0) return;
    const auto blocks = static_cast<unsigned>((chunks_ + detail::kSumWarpsPerBlock - 1) / detail::kSumWarpsPerBlock);
    detail::chunk_sums_kernel<<<blocks, 32 * detail::kSumWarpsPerBlock>>>(term, n_, chunks_, partials());
    MSKB_CUDA_CHECK(cudaGetLastError());
  }
  // The total, then finish(total) on one device thread (Finish: a functor with
  // `__device__ void operator()(double total) const`, which writes what it derives from the total
  // to device memory). The empty sum (n = 0) is 0.0, as on the CPU.
  template <class Term, class Finish>
  void sum_then(const Term& term, const Finish& finish) {
    chunk_sums(term);
    detail::add_chunk_sums_kernel<<<1, 1>>>(partials(), chunks_, finish);
    MSKB_CUDA_CHECK(cudaGetLastError());
  }
  // *total (device) = the sum.
  template <class Term>
  void sum(const Term& term, double* total) {
    sum_then(term, detail::StoreTotal{total});
  }

 private:
  std::size_t n_, chunks_;
  DeviceMemory partial_;
};
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
