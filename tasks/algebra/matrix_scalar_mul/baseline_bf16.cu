// Naive baseline: one thread per element; multiplies in FP32 and rounds once to bf16.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void matrix_scalar_mul_bf16_kernel(const __nv_bfloat16* A, __nv_bfloat16* B, float scalar, long long total) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < total) B[i] = __float2bfloat16(scalar * __bfloat162float(A[i]));
}

extern "C" void matrix_scalar_mul_bf16(const __nv_bfloat16* A, __nv_bfloat16* B, __nv_bfloat16 scalar, int M, int N) {
  const long long total = static_cast<long long>(M) * N;
  const int threads = 256;
  const long long blocks = (total + threads - 1) / threads;
  matrix_scalar_mul_bf16_kernel<<<static_cast<unsigned>(blocks), threads>>>(A, B, __bfloat162float(scalar), total);
  cudaDeviceSynchronize();
}
