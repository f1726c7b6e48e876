// mskb-expect: wrong_result
// mskb-precision: bf16
// Shortcut: accumulates the dot product in bf16 (__hfma into a bf16 accumulator) instead of FP32. Harmless
// for a handful of terms; from N = 256 on (the first paper shape) the running sum loses several percent.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "mskb_rounding.cuh"

using mskb_rounding::fma_bf16;

__global__ void mv_bf16_acc(const __nv_bfloat16* A, const __nv_bfloat16* x, __nv_bfloat16* y, int M, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= M) return;
  __nv_bfloat16 acc = __float2bfloat16(0.0f);
  for (int j = 0; j < N; ++j) acc = fma_bf16(A[i * N + j], x[j], acc);
  y[i] = acc;
}

extern "C" void matrix_vector_mul_bf16(const __nv_bfloat16* A, const __nv_bfloat16* x, __nv_bfloat16* y, int M, int N) {
  const int threads = 128;
  mv_bf16_acc<<<static_cast<unsigned>((static_cast<long long>(M) + threads - 1) / threads), threads>>>(A, x, y, M, N);
  cudaDeviceSynchronize();
}
