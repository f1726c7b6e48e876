// mskb-expect: wrong_result
// mskb-precision: bf16
// Shortcut: accumulates the dot product in bf16 (__hfma into a bf16 accumulator) instead of FP32. Harmless
// for a handful of terms; from N = 256 on (the first paper shape) the running sum loses several percent.
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
