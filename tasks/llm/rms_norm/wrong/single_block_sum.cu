// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: one block of 1024 threads computes sum(input^2), each thread loading input[threadIdx.x]
// only, i.e. it assumes N <= blockDim.x (true for every paper size, N <= 1024). For larger N the rms
// comes from the first 1024 elements only. The output itself is written for all N elements
// (grid-stride loop), so the kernel is rejected for its wrong statistic on held-out N > 1024.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {

__device__ float to_f(float v) { return v; }
__device__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ void store(float* p, float v) { *p = v; }
__device__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

template <class T>
__global__ void rms_norm_one_block(T* out, const T* x, const T* w, const T* b, float eps, int n) {
  __shared__ float s[1024];
  __shared__ float rinv;
  const int t = threadIdx.x;
  const int used = n < 1024 ? n : 1024;
  const float v = t < n ? to_f(x[t]) : 0.0f;
  s[t] = v * v;
  __syncthreads();
  for (int off = 512; off > 0; off >>= 1) {
    if (t < off) s[t] += s[t + off];
    __syncthreads();
  }
  if (t == 0) rinv = rsqrtf(s[0] / used + eps);
  __syncthreads();
  for (long long i = t; i < n; i += blockDim.x) store(&out[i], to_f(w[i]) * (to_f(x[i]) * rinv) + to_f(b[i]));
}

}  // namespace

extern "C" void rms_norm(float* output, const float* input, const float* weight, const float* bias, const float epsilon,
                         const int N) {
  rms_norm_one_block<float><<<1, 1024>>>(output, input, weight, bias, epsilon, N);
  cudaDeviceSynchronize();
}

extern "C" void rms_norm_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, const __nv_bfloat16* weight,
                              const __nv_bfloat16* bias, const float epsilon, const int N) {
  rms_norm_one_block<__nv_bfloat16><<<1, 1024>>>(output, input, weight, bias, epsilon, N);
  cudaDeviceSynchronize();
}
