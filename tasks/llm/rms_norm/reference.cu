// FP64 device reference for rms_norm: the verifier draws large inputs on the GPU and checks them
// there. The CPU reference's operations in its order (chunked_sum, mskb/util/parallel.hpp): the sum
// of squares over chunks of 2^16 consecutive elements, one thread per chunk adding its squares in
// index order from 0.0 into a scratch partial, then one thread adding the partials in chunk order;
// separate multiplies and adds (no FMA), correctly rounded division and square root. No atomics: the
// same bits on every run, and the CPU's.
#include <cstddef>

#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {

// chunked_sum's chunk; one thread per chunk, 32 per block, so that the few chunk threads (4096 at
// N = 2^28) spread over the SMs.
constexpr std::size_t kChunk = std::size_t{1} << 16;
constexpr unsigned kSumThreads = 32;

// partial[c] = the sum of x[i] * x[i] over chunk c, in index order.
__global__ void chunk_squares(const void* x, std::size_t n, int bytes, double* partial) {
  const std::size_t c = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (c >= (n + kChunk - 1) / kChunk) return;
  const std::size_t lo = c * kChunk, hi = n - lo < kChunk ? n : lo + kChunk;
  double acc = 0.0;
#pragma unroll 4
  for (std::size_t i = lo; i < hi; ++i) {
    const double v = mskb::gpu::load_input(x, i, bytes);
    acc = __dadd_rn(acc, __dmul_rn(v, v));
  }
  partial[c] = acc;
}

// One thread: the partials added in chunk order; *rinv = 1 / sqrt(sum / n + eps).
__global__ void finish(const double* partial, std::size_t chunks, double n, double eps, double* rinv) {
  double sum = 0.0;
  for (std::size_t c = 0; c < chunks; ++c) sum = __dadd_rn(sum, partial[c]);
  *rinv = __ddiv_rn(1.0, __dsqrt_rn(__dadd_rn(__ddiv_rn(sum, n), eps)));
}

// y[i] = w[i] * x[i] * rinv + b[i], left to right as on the CPU.
__global__ void normalise(const void* x, const void* w, const void* b, std::size_t n, int bytes, const double* rinv_p,
                          double* y) {
  using mskb::gpu::load_input;
  const double rinv = *rinv_p;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    y[i] = __dadd_rn(__dmul_rn(__dmul_rn(load_input(w, i, bytes), load_input(x, i, bytes)), rinv), load_input(b, i, bytes));
}

}  // namespace

MSKB_DEVICE_REFERENCE(rms_norm) {
  (void)shape;
  const std::size_t n = args.elements[1];
  if (n == 0) return;
  const int bytes = static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision));
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  mskb::gpu::DeviceMemory scratch((chunks + 1) * sizeof(double));  // the partials, then rinv
  auto* partial = static_cast<double*>(scratch.get());
  double* rinv = partial + chunks;
  chunk_squares<<<static_cast<unsigned>((chunks + kSumThreads - 1) / kSumThreads), kSumThreads>>>(args.in[1], n, bytes, partial);
  MSKB_CUDA_CHECK(cudaGetLastError());
  finish<<<1, 1>>>(partial, chunks, static_cast<double>(n), args.scalars[4], rinv);
  MSKB_CUDA_CHECK(cudaGetLastError());
  normalise<<<4096, 256>>>(args.in[1], args.in[2], args.in[3], n, bytes, rinv, args.out[0]);
  MSKB_CUDA_CHECK(cudaGetLastError());
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());  // before the scratch is freed
}
