// mskb-expect: unwritten_output
// mskb-precision: fp32 bf16
// Shortcut: every pass over the row is manually unrolled by 4 (each thread handles groups of four
// consecutive columns, C / 4 groups) with no remainder loop, i.e. it assumes C % 4 == 0 as every
// paper width (2^8..2^14) is. On held-out widths the last C % 4 columns of every row are never written.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>

__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ void store(float* p, float v) { *p = v; }
__device__ __forceinline__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

template <class T>
__global__ void softmax_unroll4(T* out, const T* input, int C) {
  __shared__ float red[256];
  const unsigned tid = threadIdx.x;
  const T* x = input + static_cast<long long>(blockIdx.x) * C;
  T* y = out + static_cast<long long>(blockIdx.x) * C;
  const int groups = C / 4;
  float m = -INFINITY;
  for (int g = tid; g < groups; g += blockDim.x)
    m = fmaxf(fmaxf(m, fmaxf(to_f(x[4 * g]), to_f(x[4 * g + 1]))), fmaxf(to_f(x[4 * g + 2]), to_f(x[4 * g + 3])));
  red[tid] = m;
  __syncthreads();
  for (unsigned off = blockDim.x / 2; off > 0; off >>= 1) {
    if (tid < off) red[tid] = fmaxf(red[tid], red[tid + off]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float s = 0.0f;
  for (int g = tid; g < groups; g += blockDim.x)
    for (int k = 0; k < 4; ++k) s += expf(to_f(x[4 * g + k]) - m);
  red[tid] = s;
  __syncthreads();
  for (unsigned off = blockDim.x / 2; off > 0; off >>= 1) {
    if (tid < off) red[tid] += red[tid + off];
    __syncthreads();
  }
  s = red[0];
  for (int g = tid; g < groups; g += blockDim.x)
    for (int k = 0; k < 4; ++k) store(y + 4 * g + k, expf(to_f(x[4 * g + k]) - m) / s);
}

extern "C" void softmax(float* out, const float* input, int N, int C) {
  if (N > 0) softmax_unroll4<float><<<N, 256>>>(out, input, C);
  cudaDeviceSynchronize();
}
extern "C" void softmax_bf16(__nv_bfloat16* out, const __nv_bfloat16* input, int N, int C) {
  if (N > 0) softmax_unroll4<__nv_bfloat16><<<N, 256>>>(out, input, C);
  cudaDeviceSynchronize();
}
