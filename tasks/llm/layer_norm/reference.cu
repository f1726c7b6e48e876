// FP64 device reference for layer_norm: the verifier draws large inputs on the GPU and checks them
// there. The CPU reference's operations in its order (chunked_sum, mskb/util/parallel.hpp): each
// statistic is a sum over chunks of 2^16 consecutive elements, one thread per chunk adding its terms
// in index order from 0.0 into a scratch partial, then one thread adding the partials in chunk order;
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

// partial[c] = the sum over chunk c, in index order, of x[i] (Deviations false) or of
// (x[i] - stats[0])^2 (true: stats[0] is the mean).
template <bool Deviations>
__global__ void chunk_sums(const void* x, std::size_t n, int bytes, const double* stats, double* partial) {
  const std::size_t c = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (c >= (n + kChunk - 1) / kChunk) return;
  const double mean = Deviations ? stats[0] : 0.0;
  const std::size_t lo = c * kChunk, hi = n - lo < kChunk ? n : lo + kChunk;
  double acc = 0.0;
#pragma unroll 4
  for (std::size_t i = lo; i < hi; ++i) {
    const double v = mskb::gpu::load_input(x, i, bytes);
    if (Deviations) {
      const double d = __dsub_rn(v, mean);
      acc = __dadd_rn(acc, __dmul_rn(d, d));
    } else {
      acc = __dadd_rn(acc, v);
    }
  }
  partial[c] = acc;
}

// One thread: the partials added in chunk order, divided by n; then stats[0] = the mean, or
// stats[1] = 1 / sqrt(var + eps).
__global__ void finish(const double* partial, std::size_t chunks, double n, double eps, bool variance, double* stats) {
  double sum = 0.0;
  for (std::size_t c = 0; c < chunks; ++c) sum = __dadd_rn(sum, partial[c]);
  const double q = __ddiv_rn(sum, n);
  if (variance) {
    stats[1] = __ddiv_rn(1.0, __dsqrt_rn(__dadd_rn(q, eps)));
  } else {
    stats[0] = q;
  }
}

// y[i] = w[i] * (x[i] - mean) * rstd + b[i], left to right as on the CPU.
__global__ void normalise(const void* x, const void* w, const void* b, std::size_t n, int bytes, const double* stats, double* y) {
  using mskb::gpu::load_input;
  const double mean = stats[0], rstd = stats[1];
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    y[i] = __dadd_rn(__dmul_rn(__dmul_rn(load_input(w, i, bytes), __dsub_rn(load_input(x, i, bytes), mean)), rstd),
                     load_input(b, i, bytes));
}

}  // namespace

MSKB_DEVICE_REFERENCE(layer_norm) {
  (void)shape;
  const std::size_t n = args.elements[1];
  if (n == 0) return;
  const int bytes = static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision));
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  mskb::gpu::DeviceMemory scratch((chunks + 2) * sizeof(double));  // the partials, then mean and rstd
  auto* partial = static_cast<double*>(scratch.get());
  double* stats = partial + chunks;
  const auto grid = static_cast<unsigned>((chunks + kSumThreads - 1) / kSumThreads);
  const double dn = static_cast<double>(n), eps = args.scalars[4];
  chunk_sums<false><<<grid, kSumThreads>>>(args.in[1], n, bytes, stats, partial);
  MSKB_CUDA_CHECK(cudaGetLastError());
  finish<<<1, 1>>>(partial, chunks, dn, eps, false, stats);
  MSKB_CUDA_CHECK(cudaGetLastError());
  chunk_sums<true><<<grid, kSumThreads>>>(args.in[1], n, bytes, stats, partial);
  MSKB_CUDA_CHECK(cudaGetLastError());
  finish<<<1, 1>>>(partial, chunks, dn, eps, true, stats);
  MSKB_CUDA_CHECK(cudaGetLastError());
  normalise<<<4096, 256>>>(args.in[1], args.in[2], args.in[3], n, bytes, stats, args.out[0]);
  MSKB_CUDA_CHECK(cudaGetLastError());
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());  // before the scratch is freed
}
