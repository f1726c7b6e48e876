// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: one block of 1024 threads per channel, thread t loading row t only, i.e. it assumes the batch
// fits one block (N <= 1024, true for every paper size). For larger N the channel statistics come from
// the first 1024 rows only. Every output element is still written (each block loops over all N rows of
// its channel), so the kernel is rejected for its wrong statistics on held-out N > 1024.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {

__device__ float to_f(float v) { return v; }
__device__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ void store(float* p, float v) { *p = v; }
__device__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

template <class T>
__global__ void batch_norm_block_per_channel(T* out, const T* x, const T* gamma, const T* beta, float eps, int n, int c) {
  __shared__ float s[1024];
  __shared__ float mean, rstd;
  const int t = threadIdx.x;
  const long long ch = blockIdx.x;
  const int used = n < 1024 ? n : 1024;
  const float v = t < n ? to_f(x[static_cast<long long>(t) * c + ch]) : 0.0f;
  s[t] = v;
  __syncthreads();
  for (int off = 512; off > 0; off >>= 1) {
    if (t < off) s[t] += s[t + off];
    __syncthreads();
  }
  if (t == 0) mean = s[0] / used;
  __syncthreads();
  const float d = t < n ? v - mean : 0.0f;
  s[t] = d * d;
  __syncthreads();
  for (int off = 512; off > 0; off >>= 1) {
    if (t < off) s[t] += s[t + off];
    __syncthreads();
  }
  if (t == 0) rstd = rsqrtf(s[0] / used + eps);
  __syncthreads();
  const float g = to_f(gamma[ch]), b = to_f(beta[ch]);
  for (long long r = t; r < n; r += blockDim.x) {
    const long long i = r * c + ch;
    store(&out[i], g * ((to_f(x[i]) - mean) * rstd) + b);
  }
}

}  // namespace

extern "C" void batch_norm(float* output, const float* input, const float* gamma, const float* beta, const float epsilon,
                           const int N, const int C) {
  batch_norm_block_per_channel<float><<<C, 1024>>>(output, input, gamma, beta, epsilon, N, C);
  cudaDeviceSynchronize();
}

extern "C" void batch_norm_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, const __nv_bfloat16* gamma,
                                const __nv_bfloat16* beta, const float epsilon, const int N, const int C) {
  batch_norm_block_per_channel<__nv_bfloat16><<<C, 1024>>>(output, input, gamma, beta, epsilon, N, C);
  cudaDeviceSynchronize();
}
