// mskb-expect: wrong_result
// mskb-precision: bf16
// Shortcut: accumulates the K-long dot products in __nv_bfloat16 (__hfma), as a "pure bf16" kernel
// would. Each step rounds the running sum to 8 mantissa bits; over K = 4096 terms the result is off by
// several percent, far outside the bf16 tolerance (which assumes FP32 accumulation and one rounding).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "mskb_rounding.cuh"

using mskb_rounding::fma_bf16;

__global__ void mm_bf16_acc(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  const __nv_bfloat16* a = A + static_cast<long long>(row) * K;
  __nv_bfloat16 acc = __float2bfloat16(0.0f);
  for (int k = 0; k < K; ++k) acc = fma_bf16(a[k], B[static_cast<long long>(k) * N + col], acc);
  C[static_cast<long long>(row) * N + col] = acc;
}

extern "C" void matrix_mul_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K) {
  const dim3 threads(16, 16);
  const dim3 blocks((N + 15) / 16, (M + 15) / 16);
  mm_bf16_acc<<<blocks, threads>>>(A, B, C, M, N, K);
  cudaDeviceSynchronize();
}
