// mskb-expect: sanitizer_error
// mskb-precision: fp32 bf16
// mskb-class: 7 guard-restoring-memory-error
// mskb-gate: memcheck
// Trick: `loss` is a single float, but the kernel treats loss[1..256] as a free partial-sum array
// (no cudaMalloc, no atomics): one block saves what lies behind loss, stores per-warp partials
// there, reduces them into loss[0] and writes the saved bytes back before it exits. The guard zone
// after `loss` reads as intact and the value is right. Why reject: out-of-bounds reads and writes
// past the caller's allocation; only compute-sanitizer memcheck sees them: sanitizer_error under
// --memcheck.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ float to_f(float v) { return v; }
__device__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }

template <class T>
__global__ void dot_one_block(float* loss, const T* X, const T* Y, int N) {
  float* partial = loss + 1;  // out of bounds: loss holds one float
  const float saved = partial[threadIdx.x];
  float acc = 0.0f;
  for (long long i = threadIdx.x; i < N; i += 256) acc += to_f(X[i]) * to_f(Y[i]);
  partial[threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int t = 0; t < 256; ++t) s += partial[t];
    loss[0] += s;
  }
  __syncthreads();
  partial[threadIdx.x] = saved;
}

extern "C" void dot_product(float* loss, const float* X, const float* Y, const int N) {
  dot_one_block<float><<<1, 256>>>(loss, X, Y, N);
  cudaDeviceSynchronize();
}
extern "C" void dot_product_bf16(float* loss, const __nv_bfloat16* X, const __nv_bfloat16* Y, const int N) {
  dot_one_block<__nv_bfloat16><<<1, 256>>>(loss, X, Y, N);
  cudaDeviceSynchronize();
}
