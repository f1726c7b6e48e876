// Bound by construction: DRAM bandwidth. vector_add ABI; streams A and B once, writes C once,
// 16-byte accesses, enough blocks to saturate HBM. Profile at N = 2^28.
#include <cuda_runtime.h>
__global__ void stream(const float4* __restrict__ A, const float4* __restrict__ B, float4* __restrict__ C, long long n4) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n4; i += 256ll * gridDim.x) {
    const float4 a = A[i], b = B[i];
    C[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
  }
}
extern "C" void vector_add(const float* A, const float* B, float* C, int N) {
  stream<<<132 * 16, 256>>>(reinterpret_cast<const float4*>(A), reinterpret_cast<const float4*>(B), reinterpret_cast<float4*>(C), N / 4);
  cudaDeviceSynchronize();
}
