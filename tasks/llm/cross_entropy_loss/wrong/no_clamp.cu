// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: drops the clamp, computing -Y * log(X) directly ("X is a probability, it is never 0"). The
// inputs never contain a zero, but X[i] ~ U(0,1) * 2/C falls below 1e-8 for a growing share of elements
// as C grows (~2% at C = 2^22), where log(X) keeps falling below log(1e-8) = -18.4. Close enough for small
// C; the loss is too large by 1.7x the tolerance at C = 2^20, 5x at C = 2^22 and more in the large sweep.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float to_f(float x) { return x; }
__device__ __forceinline__ float to_f(__nv_bfloat16 x) { return __bfloat162float(x); }

template <class T>
__global__ void ce_no_clamp_kernel(float* loss, const T* X, const T* Y, int C) {
  __shared__ float s[256];
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < C ? to_f(Y[i]) * logf(to_f(X[i])) : 0.0f;
  __syncthreads();
  for (unsigned off = blockDim.x / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) s[threadIdx.x] += s[threadIdx.x + off];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(loss, -s[0]);
}

template <class T>
void run(float* loss, const T* X, const T* Y, int C) {
  const long long blocks = (static_cast<long long>(C) + 255) / 256;
  if (blocks > 0) ce_no_clamp_kernel<T><<<static_cast<unsigned>(blocks), 256>>>(loss, X, Y, C);
  cudaDeviceSynchronize();
}

extern "C" void cross_entropy_loss(float* loss, const float* X, const float* Y, const int C) { run(loss, X, Y, C); }
extern "C" void cross_entropy_loss_bf16(float* loss, const __nv_bfloat16* X, const __nv_bfloat16* Y, const int C) {
  run(loss, X, Y, C);
}
