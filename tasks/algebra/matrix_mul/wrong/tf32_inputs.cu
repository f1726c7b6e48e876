// mskb-expect: wrong_result
// mskb-precision: fp32
// Shortcut: TF32. Rounds every A and B element to TF32 (10-bit mantissa, cvt.rna.tf32.f32) before the
// multiply, which is exactly what TF32 tensor cores (CUBLAS_TF32_TENSOR_OP_MATH, allow_tf32, wmma tf32)
// do, and accumulates in FP32. The error (~1e-2 absolute at K = 4096) is far outside the FP32 tolerance.
#include <cuda_runtime.h>

#include "mskb_rounding.cuh"

using mskb_rounding::to_tf32;

__global__ void mm_tf32(const float* A, const float* B, float* C, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  const float* a = A + static_cast<long long>(row) * K;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc = fmaf(to_tf32(a[k]), to_tf32(B[static_cast<long long>(k) * N + col]), acc);
  C[static_cast<long long>(row) * N + col] = acc;
}

extern "C" void matrix_mul(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 threads(16, 16);
  const dim3 blocks((N + 15) / 16, (M + 15) / 16);
  mm_tf32<<<blocks, threads>>>(A, B, C, M, N, K);
  cudaDeviceSynchronize();
}
