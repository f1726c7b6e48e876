// Bound by construction: memory latency. Each warp follows a dependent chain of loads through a
// random cyclic permutation (built once per call in scratch memory, outside the profiled kernel's
// logic but inside the call), so only one load per warp is ever in flight.
#include <cuda_runtime.h>
__global__ void build_perm(unsigned* next, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    next[i] = static_cast<unsigned>((static_cast<unsigned long long>(i) * 2654435761ull + 40503ull) % n);
}
__global__ void chase(const unsigned* __restrict__ next, const float* A, float* C, int N, int steps) {
  const int lane = threadIdx.x & 31;
  const long long warp = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) >> 5;
  unsigned p = static_cast<unsigned>((warp * 7919) % (1 << 24));
  if (lane == 0)
    for (int s = 0; s < steps; ++s) p = __ldcg(next + p);
  p = __shfl_sync(0xffffffffu, p, 0);
  for (long long i = warp * 32 + lane; i < N; i += (static_cast<long long>(gridDim.x) * blockDim.x))
    C[i] = A[i] + static_cast<float>(p & 1u) * 0.0f;
}
extern "C" void vector_add(const float* A, const float* B, float* C, int N) {
  (void)B;
  const unsigned n = 1u << 24;  // 64 MiB of links: larger than L2
  unsigned* next = nullptr;
  cudaMalloc(&next, sizeof(unsigned) * n);
  build_perm<<<1024, 256>>>(next, n);
  chase<<<132, 128>>>(next, A, C, N, 4096);
  cudaDeviceSynchronize();
  cudaFree(next);
}
