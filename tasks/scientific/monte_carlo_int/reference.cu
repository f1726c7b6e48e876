// FP64 device reference for monte_carlo_int: the verifier draws large inputs on the GPU and checks
// them there. The CPU reference's operations in its order (chunked_sum, mskb/util/parallel.hpp): the
// sum of the samples over chunks of 2^16 consecutive elements, one thread per chunk adding its
// samples in index order from 0.0 into a scratch partial, then one thread adding the partials in
// chunk order and result[0] += (b - a) * sum / n (left to right, no FMA). No atomics: the same bits
// on every run, and the CPU's.
#include <cstddef>

#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {

// chunked_sum's chunk; one thread per chunk, 32 per block, so that the few chunk threads (4096 at
// N = 2^28) spread over the SMs.
constexpr std::size_t kChunk = std::size_t{1} << 16;
constexpr unsigned kSumThreads = 32;

// partial[c] = the sum of y[i] over chunk c, in index order.
__global__ void chunk_sums(const void* y, std::size_t n, int bytes, double* partial) {
  const std::size_t c = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (c >= (n + kChunk - 1) / kChunk) return;
  const std::size_t lo = c * kChunk, hi = n - lo < kChunk ? n : lo + kChunk;
  double acc = 0.0;
#pragma unroll 4
  for (std::size_t i = lo; i < hi; ++i) acc = __dadd_rn(acc, mskb::gpu::load_input(y, i, bytes));
  partial[c] = acc;
}

// One thread: the partials added in chunk order; result[0] += (b - a) * sum / n.
__global__ void finish(const double* partial, std::size_t chunks, double n, double a, double b, double* result) {
  double sum = 0.0;
  for (std::size_t c = 0; c < chunks; ++c) sum = __dadd_rn(sum, partial[c]);
  result[0] = __dadd_rn(result[0], __ddiv_rn(__dmul_rn(__dsub_rn(b, a), sum), n));
}

}  // namespace

MSKB_DEVICE_REFERENCE(monte_carlo_int) {
  (void)shape;
  const std::size_t n = args.elements[0];
  if (n == 0) return;
  const int bytes = static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision));
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  mskb::gpu::DeviceMemory scratch(chunks * sizeof(double));
  auto* partial = static_cast<double*>(scratch.get());
  chunk_sums<<<static_cast<unsigned>((chunks + kSumThreads - 1) / kSumThreads), kSumThreads>>>(args.in[0], n, bytes, partial);
  MSKB_CUDA_CHECK(cudaGetLastError());
  finish<<<1, 1>>>(partial, chunks, static_cast<double>(n), args.scalars[2], args.scalars[3], args.out[1]);
  MSKB_CUDA_CHECK(cudaGetLastError());
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());  // before the scratch is freed
}
