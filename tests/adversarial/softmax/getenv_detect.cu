// mskb-expect: rejected_static
// mskb-precision: fp32 bf16
// mskb-class: 2 runtime-policy
// Trick: reads the environment (getenv("MSKB_CACHE_DIR"), CUDA_VISIBLE_DEVICES, ...) to tell the
// harness from a user's program, and takes a row-max-free shortcut (overflows for large rows) when
// it believes nobody checks. Why reject: behaviour must not depend on who is watching; kernels must
// not read the environment. The binary policy refuses the import of getenv (and secure_getenv).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>

#include <cstdlib>

__device__ float ld(const float* p, long long i) { return p[i]; }
__device__ float ld(const __nv_bfloat16* p, long long i) { return __bfloat162float(p[i]); }
__device__ void st(float* p, long long i, float v) { p[i] = v; }
__device__ void st(__nv_bfloat16* p, long long i, float v) { p[i] = __float2bfloat16(v); }

template <class T>
__global__ void softmax_rows(T* out, const T* in, int C, int careful) {
  __shared__ float red[256];
  const T* x = in + static_cast<long long>(blockIdx.x) * C;
  T* y = out + static_cast<long long>(blockIdx.x) * C;
  float m = careful ? -INFINITY : 0.0f;
  if (careful) {
    for (int j = threadIdx.x; j < C; j += 256) m = fmaxf(m, ld(x, j));
    red[threadIdx.x] = m;
    __syncthreads();
    for (unsigned o = 128; o > 0; o >>= 1) {
      if (threadIdx.x < o) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + o]);
      __syncthreads();
    }
    m = red[0];
    __syncthreads();
  }
  float s = 0.0f;
  for (int j = threadIdx.x; j < C; j += 256) s += expf(ld(x, j) - m);
  red[threadIdx.x] = s;
  __syncthreads();
  for (unsigned o = 128; o > 0; o >>= 1) {
    if (threadIdx.x < o) red[threadIdx.x] += red[threadIdx.x + o];
    __syncthreads();
  }
  s = red[0];
  for (int j = threadIdx.x; j < C; j += 256) st(y, j, expf(ld(x, j) - m) / s);
}

template <class T>
static void run(T* out, const T* in, int N, int C) {
  static const int watched = std::getenv("MSKB_CACHE_DIR") != nullptr || std::getenv("MSKB_ROOT") != nullptr;
  if (N > 0) softmax_rows<T><<<N, 256>>>(out, in, C, watched);
  cudaDeviceSynchronize();
}

extern "C" void softmax(float* out, const float* input, int N, int C) { run(out, input, N, C); }
extern "C" void softmax_bf16(__nv_bfloat16* out, const __nv_bfloat16* input, int N, int C) { run(out, input, N, C); }
