// FP64 device reference for MSE_loss: the verifier draws large inputs on the GPU and checks them
// there. The CPU reference's operations in its order (chunked_sum): d = X[i] - Y[i] and d * d
// rounded separately (no FMA), chunks of 2^16 squares each added one by one from 0.0 in index
// order, the chunk sums added in chunk order from 0.0, the total divided by N; so the result is
// the CPU reference's, bit for bit. Deterministic: no atomics.
#include <cstddef>

#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
constexpr std::size_t kChunk = std::size_t{1} << 16;  // chunked_sum's default chunk
constexpr unsigned kWarpsPerBlock = 4;
constexpr unsigned kFullMask = 0xffffffffu;

// One warp per chunk c: partial[c] = the chunk's squared differences added in index order from 0.0.
// The lanes load 32 consecutive elements of each segment (coalesced) and form their squares; every
// lane then adds the segment's squares in lane order (broadcast by shuffles), so all lanes carry the
// same sequential sum.
__global__ void chunk_squared_differences(const void* x, const void* y, double* partial, std::size_t n, std::size_t chunks,
                                          int bytes) {
  const std::size_t c = (blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x) / 32;
  if (c >= chunks) return;  // a whole warp: blockDim.x is a multiple of 32
  const unsigned lane = threadIdx.x % 32;
  const std::size_t lo = c * kChunk, hi = n - lo < kChunk ? n : lo + kChunk;
  double acc = 0.0;
  for (std::size_t seg = lo; seg < hi; seg += 32) {
    const std::size_t i = seg + lane;
    double t = 0.0;
    if (i < hi) {
      const double d = __dsub_rn(mskb::gpu::load_input(x, i, bytes), mskb::gpu::load_input(y, i, bytes));
      t = __dmul_rn(d, d);
    }
    const int count = hi - seg < 32 ? static_cast<int>(hi - seg) : 32;  // elements in this segment, >= 1
#pragma unroll
    for (int j = 0; j < 32; ++j) {
      const double v = __shfl_sync(kFullMask, t, j);
      if (j < count) acc = __dadd_rn(acc, v);
    }
  }
  if (lane == 0) partial[c] = acc;
}

// One thread: the chunk sums added in chunk order from 0.0, divided by N.
__global__ void mean_in_order(const double* partial, std::size_t chunks, std::size_t n, double* out) {
  double sum = 0.0;
  for (std::size_t c = 0; c < chunks; ++c) sum = __dadd_rn(sum, partial[c]);
  out[0] = __ddiv_rn(sum, static_cast<double>(n));
}
}  // namespace

MSKB_DEVICE_REFERENCE(MSE_loss) {
  (void)shape;
  const std::size_t n = args.elements[1];
  if (n == 0) return;  // no elements (N >= 1 by the semantics): loss stays 0
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  mskb::gpu::DeviceMemory partial(chunks * sizeof(double));
  auto* sums = static_cast<double*>(partial.get());
  const unsigned blocks = static_cast<unsigned>((chunks + kWarpsPerBlock - 1) / kWarpsPerBlock);
  chunk_squared_differences<<<blocks, 32 * kWarpsPerBlock>>>(args.in[1], args.in[2], sums, n, chunks,
                                                             static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)));
  MSKB_CUDA_CHECK(cudaGetLastError());
  mean_in_order<<<1, 1>>>(sums, chunks, n, args.out[0]);
  MSKB_CUDA_CHECK(cudaGetLastError());
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());  // the kernels are done with `partial` before it is freed
}
