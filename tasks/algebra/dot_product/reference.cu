// FP64 device reference for dot_product: the verifier draws large inputs on the GPU and checks
// them there. The CPU reference's sums in its order (chunked_sum): chunks of 2^16 products, each
// added one by one from 0.0 in index order, then the chunk sums added in chunk order from 0.0;
// separate multiply and add (no FMA, and the products of two floats are exact in FP64 anyway), so
// the result is the CPU reference's, bit for bit. Deterministic: no atomics.
#include <cstddef>

#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
constexpr std::size_t kChunk = std::size_t{1} << 16;  // chunked_sum's default chunk
constexpr unsigned kWarpsPerBlock = 4;
constexpr unsigned kFullMask = 0xffffffffu;

// One warp per chunk c: partial[c] = the chunk's products added in index order from 0.0. The lanes
// load 32 consecutive elements of each segment (coalesced) and form their products; every lane then
// adds the segment's products in lane order (broadcast by shuffles), so all lanes carry the same
// sequential sum.
__global__ void chunk_dot(const void* x, const void* y, double* partial, std::size_t n, std::size_t chunks, int bytes) {
  const std::size_t c = (blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x) / 32;
  if (c >= chunks) return;  // a whole warp: blockDim.x is a multiple of 32
  const unsigned lane = threadIdx.x % 32;
  const std::size_t lo = c * kChunk, hi = n - lo < kChunk ? n : lo + kChunk;
  double acc = 0.0;
  for (std::size_t seg = lo; seg < hi; seg += 32) {
    const std::size_t i = seg + lane;
    const double t = i < hi ? __dmul_rn(mskb::gpu::load_input(x, i, bytes), mskb::gpu::load_input(y, i, bytes)) : 0.0;
    const int count = hi - seg < 32 ? static_cast<int>(hi - seg) : 32;  // elements in this segment, >= 1
#pragma unroll
    for (int j = 0; j < 32; ++j) {
      const double v = __shfl_sync(kFullMask, t, j);
      if (j < count) acc = __dadd_rn(acc, v);
    }
  }
  if (lane == 0) partial[c] = acc;
}

// One thread: the chunk sums added in chunk order from 0.0.
__global__ void sum_in_order(const double* partial, std::size_t chunks, double* out) {
  double sum = 0.0;
  for (std::size_t c = 0; c < chunks; ++c) sum = __dadd_rn(sum, partial[c]);
  out[0] = sum;
}
}  // namespace

MSKB_DEVICE_REFERENCE(dot_product) {
  (void)shape;
  const std::size_t n = args.elements[1];
  if (n == 0) return;  // the empty sum: loss stays 0
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  mskb::gpu::DeviceMemory partial(chunks * sizeof(double));
  auto* sums = static_cast<double*>(partial.get());
  const unsigned blocks = static_cast<unsigned>((chunks + kWarpsPerBlock - 1) / kWarpsPerBlock);
  chunk_dot<<<blocks, 32 * kWarpsPerBlock>>>(args.in[1], args.in[2], sums, n, chunks,
                                             static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)));
  MSKB_CUDA_CHECK(cudaGetLastError());
  sum_in_order<<<1, 1>>>(sums, chunks, args.out[0]);
  MSKB_CUDA_CHECK(cudaGetLastError());
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());  // the kernels are done with `partial` before it is freed
}
