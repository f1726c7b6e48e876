// FP64 device reference for prefix_sum: the verifier draws large inputs on the GPU and checks them
// there. The CPU reference's two-pass chunked scan in its order: chunks of 2^16 inputs, each
// chunk's inputs added one by one from 0.0 in index order; the chunk sums' exclusive prefix taken
// sequentially in chunk order from 0.0 (the chunks' offsets); every chunk then scanned in index order
// from its offset. The same additions in the same order, so the outputs are the CPU reference's, bit
// for bit. Deterministic: no atomics.
#include <cstddef>

#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
constexpr std::size_t kChunk = std::size_t{1} << 16;  // the CPU reference's chunk
constexpr unsigned kWarpsPerBlock = 4;
constexpr unsigned kFullMask = 0xffffffffu;

// Chunk c of [0, n) handled by the calling warp: [lo, hi).
__device__ inline std::size_t chunk_end(std::size_t lo, std::size_t n) { return n - lo < kChunk ? n : lo + kChunk; }

// One warp per chunk c: sums[c] = the chunk's inputs added in index order from 0.0. The lanes load
// 32 consecutive inputs of each segment (coalesced); every lane then adds them in lane order
// (broadcast by shuffles), so all lanes carry the same sequential sum.
__global__ void chunk_sums(const void* x, double* sums, std::size_t n, std::size_t chunks, int bytes) {
  const std::size_t c = (blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x) / 32;
  if (c >= chunks) return;  // a whole warp: blockDim.x is a multiple of 32
  const unsigned lane = threadIdx.x % 32;
  const std::size_t lo = c * kChunk, hi = chunk_end(lo, n);
  double acc = 0.0;
  for (std::size_t seg = lo; seg < hi; seg += 32) {
    const std::size_t i = seg + lane;
    const double t = i < hi ? mskb::gpu::load_input(x, i, bytes) : 0.0;
    const int count = hi - seg < 32 ? static_cast<int>(hi - seg) : 32;  // inputs in this segment, >= 1
#pragma unroll
    for (int j = 0; j < 32; ++j) {
      const double v = __shfl_sync(kFullMask, t, j);
      if (j < count) acc = __dadd_rn(acc, v);
    }
  }
  if (lane == 0) sums[c] = acc;
}

// One thread: the chunk sums replaced by their exclusive prefix, taken in chunk order from 0.0.
__global__ void offsets_in_order(double* sums, std::size_t chunks) {
  double run = 0.0;
  for (std::size_t c = 0; c < chunks; ++c) {
    const double sum = sums[c];
    sums[c] = run;
    run = __dadd_rn(run, sum);
  }
}

// One warp per chunk c: y[i] = offset[c] + x[lo] + ... + x[i], added one by one in index order.
// Every lane carries the same running sum through each segment (inputs broadcast by shuffles) and
// keeps it after its own input; the segment's outputs are then stored together (coalesced).
__global__ void chunk_scan(const void* x, const double* offsets, double* y, std::size_t n, std::size_t chunks, int bytes) {
  const std::size_t c = (blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x) / 32;
  if (c >= chunks) return;  // a whole warp
  const unsigned lane = threadIdx.x % 32;
  const std::size_t lo = c * kChunk, hi = chunk_end(lo, n);
  double acc = offsets[c];
  for (std::size_t seg = lo; seg < hi; seg += 32) {
    const std::size_t i = seg + lane;
    const double t = i < hi ? mskb::gpu::load_input(x, i, bytes) : 0.0;
    const int count = hi - seg < 32 ? static_cast<int>(hi - seg) : 32;  // inputs in this segment, >= 1
    double mine = 0.0;
#pragma unroll
    for (int j = 0; j < 32; ++j) {
      const double v = __shfl_sync(kFullMask, t, j);
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
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  const int bytes = static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision));
  mskb::gpu::DeviceMemory scratch(chunks * sizeof(double));
  auto* offsets = static_cast<double*>(scratch.get());
  const unsigned blocks = static_cast<unsigned>((chunks + kWarpsPerBlock - 1) / kWarpsPerBlock);
  chunk_sums<<<blocks, 32 * kWarpsPerBlock>>>(args.in[1], offsets, n, chunks, bytes);
  MSKB_CUDA_CHECK(cudaGetLastError());
  offsets_in_order<<<1, 1>>>(offsets, chunks);
  MSKB_CUDA_CHECK(cudaGetLastError());
  chunk_scan<<<blocks, 32 * kWarpsPerBlock>>>(args.in[1], offsets, args.out[0], n, chunks, bytes);
  MSKB_CUDA_CHECK(cudaGetLastError());
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());  // the kernels are done with `scratch` before it is freed
}
