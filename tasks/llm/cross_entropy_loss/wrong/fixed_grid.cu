// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: a fixed 1024-block x 256-thread grid (one element per thread, no grid-stride loop), sized
// for "typical" C: only the first 2^18 terms are ever reduced. Correct for C <= 262144 (the paper's 2^14
// to 2^18 and the small held-out sizes); for C = 2^20 and 2^22 most of the sum is missing.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float to_f(float x) { return x; }
__device__ __forceinline__ float to_f(__nv_bfloat16 x) { return __bfloat162float(x); }

template <class T>
__global__ void ce_fixed_grid_kernel(float* loss, const T* X, const T* Y, int C) {
  __shared__ float s[256];
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < C ? to_f(Y[i]) * logf(fmaxf(to_f(X[i]), 1e-8f)) : 0.0f;
  __syncthreads();
  for (unsigned off = blockDim.x / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) s[threadIdx.x] += s[threadIdx.x + off];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(loss, -s[0]);
}

extern "C" void cross_entropy_loss(float* loss, const float* X, const float* Y, const int C) {
  ce_fixed_grid_kernel<float><<<1024, 256>>>(loss, X, Y, C);
  cudaDeviceSynchronize();
}

extern "C" void cross_entropy_loss_bf16(float* loss, const __nv_bfloat16* X, const __nv_bfloat16* Y, const int C) {
  ce_fixed_grid_kernel<__nv_bfloat16><<<1024, 256>>>(loss, X, Y, C);
  cudaDeviceSynchronize();
}
