// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: each block reduces its 256 squared differences correctly but then STORES its partial mean
// into *loss instead of adding it atomically, so the last block to finish overwrites everyone else's
// work. Correct while the whole input fits one block (N <= 256, e.g. the held-out N = 1); for every paper
// size the result is one block's share (about 256 / N of the mean).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float to_f(float x) { return x; }
__device__ __forceinline__ float to_f(__nv_bfloat16 x) { return __bfloat162float(x); }

template <class T>
__global__ void mse_overwrite_kernel(float* loss, const T* X, const T* Y, int N) {
  __shared__ float s[256];
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const float d = i < N ? to_f(X[i]) - to_f(Y[i]) : 0.0f;
  s[threadIdx.x] = d * d;
  __syncthreads();
  for (unsigned off = blockDim.x / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) s[threadIdx.x] += s[threadIdx.x + off];
    __syncthreads();
  }
  if (threadIdx.x == 0) *loss = s[0] / static_cast<float>(N);  // should be atomicAdd
}

template <class T>
void run(float* loss, const T* X, const T* Y, int N) {
  const long long blocks = (static_cast<long long>(N) + 255) / 256;
  if (blocks > 0) mse_overwrite_kernel<T><<<static_cast<unsigned>(blocks), 256>>>(loss, X, Y, N);
  cudaDeviceSynchronize();
}

extern "C" void MSE_loss(float* loss, const float* X, const float* Y, int N) { run(loss, X, Y, N); }
extern "C" void MSE_loss_bf16(float* loss, const __nv_bfloat16* X, const __nv_bfloat16* Y, int N) { run(loss, X, Y, N); }
