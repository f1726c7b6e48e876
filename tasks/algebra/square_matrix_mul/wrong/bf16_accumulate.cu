// mskb-expect: wrong_result
// mskb-precision: bf16
// Shortcut: accumulates each dot product in bf16 (__hfma into a bf16 accumulator) instead of FP32: the
// running sum loses ~2^-8 relative per step, percent-level errors from M = 64 on.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

// One bf16 fused multiply-add rounded to bf16: the instruction from sm_80 on; before it (sm_75 has
// no bf16 FMA) the FP32 FMA rounded to bf16, one more rounding than the instruction, as far off.
__device__ __forceinline__ __nv_bfloat16 fma_bf16(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __hfma(a, b, c);
#else
  return __float2bfloat16(fmaf(__bfloat162float(a), __bfloat162float(b), __bfloat162float(c)));
#endif
}

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
