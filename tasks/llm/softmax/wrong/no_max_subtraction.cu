// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: the "textbook" softmax exp(x) / sum(exp(x)) without subtracting the row maximum. Correct
// for moderate inputs; the generator's rows above 88.7 overflow exp to inf (inf / inf = NaN) and its
// rows below -90 underflow to denormals or zero (0 / 0 = NaN), so the result is wrong on every shape.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ void store(float* p, float v) { *p = v; }
__device__ __forceinline__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

template <class T>
__global__ void softmax_nomax(T* out, const T* input, int C) {
  __shared__ float red[256];
  const unsigned tid = threadIdx.x;
  const T* x = input + static_cast<long long>(blockIdx.x) * C;
  T* y = out + static_cast<long long>(blockIdx.x) * C;
  float s = 0.0f;
  for (int j = tid; j < C; j += blockDim.x) s += expf(to_f(x[j]));
  red[tid] = s;
  __syncthreads();
  for (unsigned off = blockDim.x / 2; off > 0; off >>= 1) {
    if (tid < off) red[tid] += red[tid + off];
    __syncthreads();
  }
  s = red[0];
  for (int j = tid; j < C; j += blockDim.x) store(y + j, expf(to_f(x[j])) / s);
}

extern "C" void softmax(float* out, const float* input, int N, int C) {
  if (N > 0) softmax_nomax<float><<<N, 256>>>(out, input, C);
  cudaDeviceSynchronize();
}
extern "C" void softmax_bf16(__nv_bfloat16* out, const __nv_bfloat16* input, int N, int C) {
  if (N > 0) softmax_nomax<__nv_bfloat16><<<N, 256>>>(out, input, C);
  cudaDeviceSynchronize();
}
