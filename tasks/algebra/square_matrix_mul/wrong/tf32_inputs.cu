// mskb-expect: wrong_result
// mskb-precision: fp32
// Shortcut: TF32. Rounds every A and B element to TF32 (10-bit mantissa, cvt.rna.tf32.f32) before the
// multiply, as TF32 tensor cores (CUBLAS_TF32_TENSOR_OP_MATH, wmma tf32) do, and accumulates in FP32.
// Already at M = 16 the error (~1e-3) is far outside the FP32 tolerance (~3e-6).
#include <cuda_runtime.h>

#include "mskb_rounding.cuh"

using mskb_rounding::to_tf32;

__global__ void smm_tf32(const float* A, const float* B, float* C, int M) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= M) return;
  float acc = 0.0f;
  for (int k = 0; k < M; ++k)
    acc = fmaf(to_tf32(A[static_cast<long long>(row) * M + k]), to_tf32(B[static_cast<long long>(k) * M + col]), acc);
  C[static_cast<long long>(row) * M + col] = acc;
}

extern "C" void square_matrix_mul(float* A, float* B, float* C, int M) {
  const dim3 threads(16, 16);
  const dim3 blocks((M + 15) / 16, (M + 15) / 16);
  smm_tf32<<<blocks, threads>>>(A, B, C, M);
  cudaDeviceSynchronize();
}
