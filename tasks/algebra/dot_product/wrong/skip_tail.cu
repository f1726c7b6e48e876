// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: assumes N is a multiple of the block size (every paper size is a power of two) and launches
// N / 256 blocks without bounds checks, so the last N % 256 products are never added. Passes every paper
// size; held-out sizes such as 1, 1000 or 65537 lose their tail.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

template <class T>
__device__ float to_f(T v);
template <>
__device__ float to_f<float>(float v) { return v; }
template <>
__device__ float to_f<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }

template <class T>
__global__ void dot_kernel(float* loss, const T* X, const T* Y) {
  __shared__ float s[256];
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  s[threadIdx.x] = to_f(X[i]) * to_f(Y[i]);
  __syncthreads();
  for (unsigned off = blockDim.x / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) s[threadIdx.x] += s[threadIdx.x + off];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(loss, s[0]);
}

template <class T>
void run(float* loss, const T* X, const T* Y, int N) {
  const int blocks = N / 256;
  if (blocks > 0) dot_kernel<T><<<blocks, 256>>>(loss, X, Y);
  cudaDeviceSynchronize();
}

extern "C" void dot_product(float* loss, const float* X, const float* Y, const int N) { run(loss, X, Y, N); }
extern "C" void dot_product_bf16(float* loss, const __nv_bfloat16* X, const __nv_bfloat16* Y, const int N) {
  run(loss, X, Y, N);
}
