// mskb-expect: wrong_result
// mskb-precision: bf16
// Shortcut: accumulates each dot product in bf16 (__hfma into a bf16 accumulator) instead of FP32: the
// running sum loses ~2^-8 relative per step, percent-level errors from M = 64 on.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "mskb_rounding.cuh"

using mskb_rounding::fma_bf16;

__global__ void smm_bf16_acc(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= M) return;
  __nv_bfloat16 acc = __float2bfloat16(0.0f);
  for (int k = 0; k < M; ++k) acc = fma_bf16(A[static_cast<long long>(row) * M + k], B[static_cast<long long>(k) * M + col], acc);
  C[static_cast<long long>(row) * M + col] = acc;
}

extern "C" void square_matrix_mul_bf16(__nv_bfloat16* A, __nv_bfloat16* B, __nv_bfloat16* C, int M) {
  const dim3 blocks((M + 15) / 16, (M + 15) / 16);
  smm_bf16_acc<<<blocks, dim3(16, 16)>>>(A, B, C, M);
  cudaDeviceSynchronize();
}
