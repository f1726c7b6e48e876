// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: memoises the result. A static cache remembers the last N and its dot product; a later call
// with the same N copies the cached value instead of recomputing. Correct for a first call (and for
// repeated timing calls on identical data), wrong as soon as the caller passes fresh inputs of the same
// size (the harness draws new data for every seed).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

template <class T>
__device__ float to_f(T v);
template <>
__device__ float to_f<float>(float v) { return v; }
template <>
__device__ float to_f<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }

template <class T>
__global__ void dot_kernel(float* loss, const T* X, const T* Y, int N) {
  __shared__ float s[256];
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < N ? to_f(X[i]) * to_f(Y[i]) : 0.0f;
  __syncthreads();
  for (unsigned off = blockDim.x / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) s[threadIdx.x] += s[threadIdx.x + off];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(loss, s[0]);
}

template <class T>
void run(float* loss, const T* X, const T* Y, int N) {
  static int cached_n = -1;
  static float cached_value = 0.0f;
  if (N == cached_n) {
    cudaMemcpy(loss, &cached_value, sizeof(float), cudaMemcpyHostToDevice);
    return;
  }
  const long long blocks = (static_cast<long long>(N) + 255) / 256;
  if (blocks > 0) dot_kernel<T><<<static_cast<unsigned>(blocks), 256>>>(loss, X, Y, N);
  cudaMemcpy(&cached_value, loss, sizeof(float), cudaMemcpyDeviceToHost);
  cached_n = N;
}

extern "C" void dot_product(float* loss, const float* X, const float* Y, const int N) { run(loss, X, Y, N); }
extern "C" void dot_product_bf16(float* loss, const __nv_bfloat16* X, const __nv_bfloat16* Y, const int N) {
  run(loss, X, Y, N);
}
