// FP64 device reference for simpson_int: the verifier draws large inputs on the GPU and checks them
// there. The CPU reference's operations in its order (chunked_sum, mskb/util/parallel.hpp): the sum
// of weight12(i, N) * y[i] over chunks of 2^16 consecutive samples, one thread per chunk adding its
// terms in index order from 0.0 into a scratch partial, then one thread adding the partials in chunk
// order and result[0] += h / 12 * sum, h = (b - a) / (N - 1) (left to right, no FMA). No atomics:
// the same bits on every run, and the CPU's.
#include <cstddef>

#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {

// chunked_sum's chunk; one thread per chunk, 32 per block, so that the few chunk threads (4096 at
// N = 2^28) spread over the SMs.
constexpr std::size_t kChunk = std::size_t{1} << 16;
constexpr unsigned kSumThreads = 32;

// spec.cpp's weight12: the weight of sample i in units of h/12 (4,16,8,...,16,4 for odd N; for even
// N that pattern over 0..N-2, plus (-1, 8, 5) on samples N-3, N-2, N-1).
__device__ double weight12(std::size_t i, std::size_t n) {
  const std::size_t last = (n % 2 == 1) ? n - 1 : n - 2;  // end of the Simpson part
  double w = 0.0;
  if (i <= last) w = (i == 0 || i == last) ? 4.0 : (i % 2 == 1 ? 16.0 : 8.0);
  if (n % 2 == 0) {
    if (i == n - 3) w -= 1.0;
    if (i == n - 2) w += 8.0;
    if (i == n - 1) w += 5.0;
  }
  return w;
}

// partial[c] = the sum of weight12(i, n) * y[i] over chunk c, in index order.
__global__ void chunk_sums(const void* y, std::size_t n, int bytes, double* partial) {
  const std::size_t c = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (c >= (n + kChunk - 1) / kChunk) return;
  const std::size_t lo = c * kChunk, hi = n - lo < kChunk ? n : lo + kChunk;
  double acc = 0.0;
#pragma unroll 4
  for (std::size_t i = lo; i < hi; ++i) acc = __dadd_rn(acc, __dmul_rn(weight12(i, n), mskb::gpu::load_input(y, i, bytes)));
  partial[c] = acc;
}

// One thread: the partials added in chunk order; result[0] += h / 12 * sum.
__global__ void finish(const double* partial, std::size_t chunks, double intervals, double a, double b, double* result) {
  double sum = 0.0;
  for (std::size_t c = 0; c < chunks; ++c) sum = __dadd_rn(sum, partial[c]);
  const double h = __ddiv_rn(__dsub_rn(b, a), intervals);
  result[0] = __dadd_rn(result[0], __dmul_rn(__ddiv_rn(h, 12.0), sum));
}

}  // namespace

MSKB_DEVICE_REFERENCE(simpson_int) {
  (void)shape;
  const std::size_t n = args.elements[0];
  if (n < 3) return;  // undefined below 3 samples; never generated (the CPU reference leaves result too)
  const int bytes = static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision));
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  mskb::gpu::DeviceMemory scratch(chunks * sizeof(double));
  auto* partial = static_cast<double*>(scratch.get());
  chunk_sums<<<static_cast<unsigned>((chunks + kSumThreads - 1) / kSumThreads), kSumThreads>>>(args.in[0], n, bytes, partial);
  MSKB_CUDA_CHECK(cudaGetLastError());
  finish<<<1, 1>>>(partial, chunks, static_cast<double>(n - 1), args.scalars[2], args.scalars[3], args.out[1]);
  MSKB_CUDA_CHECK(cudaGetLastError());
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());  // before the scratch is freed
}
