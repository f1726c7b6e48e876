// Naive baseline: one thread per element; adds in FP32, rounds once to bf16.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void vector_add_bf16_kernel(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) C[i] = __float2bfloat16(__bfloat162float(A[i]) + __bfloat162float(B[i]));
}

extern "C" void vector_add_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int N) {
  const int threads = 256;
  const long long blocks = (static_cast<long long>(N) + threads - 1) / threads;
  vector_add_bf16_kernel<<<static_cast<unsigned>(blocks), threads>>>(A, B, C, N);
  cudaDeviceSynchronize();
}
