// FP64 device reference for prefix_sum: the verifier draws large inputs on the GPU and checks them
// there. The CPU reference's two-pass chunked scan in its order: chunks of 2^16 inputs, each
// chunk's inputs added one by one from 0.0 in index order (mskb::gpu::ChunkedSum's chunk sums); the
// chunk sums' exclusive prefix taken sequentially in chunk order from 0.0 (the chunks' offsets);
// every chunk then scanned in index order from its offset. The same additions in the same order, so
// the outputs are the CPU reference's, bit for bit. Deterministic: no atomics.
#include <cstddef>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
using mskb::gpu::ChunkedSum;
constexpr unsigned kWarpsPerBlock = 4;

// One thread: the chunk sums replaced by their exclusive prefix, taken in chunk order from 0.0.
__global__ void offsets_in_order(double* sums, std::size_t chunks) {
  double run = 0.0;
  for (std::size_t c = 0; c < chunks; ++c) {
    const double sum = sums[c];
    sums[c] = run;
    run = __dadd_rn(run, sum);
  }
}

// One warp per chunk c of ChunkedSum's: y[i] = offset[c] + x[lo] + ... + x[i], added one by one in
// index order. Every lane carries the same running sum through each segment (inputs broadcast by
// shuffles) and keeps it after its own input; the segment's outputs are then stored together
// (coalesced).
__global__ void chunk_scan(const void* x, const double* offsets, double* y, std::size_t n, std::size_t chunks, int bytes) {
  const std::size_t c = (blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x) / 32;
  if (c >= chunks) return;  // a whole warp: blockDim.x is a multiple of 32
  const unsigned lane = threadIdx.x % 32;
  const std::size_t lo = c * ChunkedSum::kChunk, hi = n - lo < ChunkedSum::kChunk ? n : lo + ChunkedSum::kChunk;
  double acc = offsets[c];
  for (std::size_t seg = lo; seg < hi; seg += 32) {
    const std::size_t i = seg + lane;
    const double t = i < hi ? mskb::gpu::load_input(x, i, bytes) : 0.0;
    const int count = hi - seg < 32 ? static_cast<int>(hi - seg) : 32;  // inputs in this segment, >= 1
    double mine = 0.0;
#pragma unroll
    for (int j = 0; j < 32; ++j) {
      const double v = __shfl_sync(0xffffffffu, t, j);
      if (j < count) {
        acc = __dadd_rn(acc, v);
        if (static_cast<int>(lane) == j) mine = acc;
      }
    }
    if (i < hi) y[i] = mine;
  }
}
}  // namespace

MSKB_DEVICE_REFERENCE(prefix_sum) {
  (void)shape;
  const std::size_t n = args.elements[1];
  if (n == 0) return;
  const int bytes = static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision));
  ChunkedSum sums(n);
  sums.chunk_sums(mskb::gpu::InputTerm{args.in[1], bytes});
  double* offsets = sums.partials();
  offsets_in_order<<<1, 1>>>(offsets, sums.chunks());
  MSKB_CUDA_CHECK(cudaGetLastError());
  const auto blocks = static_cast<unsigned>((sums.chunks() + kWarpsPerBlock - 1) / kWarpsPerBlock);
  chunk_scan<<<blocks, 32 * kWarpsPerBlock>>>(args.in[1], offsets, args.out[0], n, sums.chunks(), bytes);
  MSKB_CUDA_CHECK(cudaGetLastError());
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());
}
