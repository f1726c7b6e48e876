// mskb-expect: wrong_result
// mskb-precision: bf16
// Shortcut: keeps the whole reduction in __nv_bfloat16 (products, each thread's running sum over 16
// elements and the block tree), converting to float only for the final atomicAdd. Every bf16 add rounds
// to 8 mantissa bits, so the result drifts by far more than FP32 summation would (~1% of the value).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void dot_bf16_acc_kernel(float* loss, const __nv_bfloat16* X, const __nv_bfloat16* Y, int N) {
  __shared__ __nv_bfloat16 s[256];
  const long long base = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * 16;
  __nv_bfloat16 acc = __float2bfloat16(0.0f);
  for (int k = 0; k < 16; ++k)
    if (base + k < N) acc = __hadd(acc, __hmul(X[base + k], Y[base + k]));
  s[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned off = blockDim.x / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) s[threadIdx.x] = __hadd(s[threadIdx.x], s[threadIdx.x + off]);
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(loss, __bfloat162float(s[0]));
}

extern "C" void dot_product_bf16(float* loss, const __nv_bfloat16* X, const __nv_bfloat16* Y, const int N) {
  const long long per_block = 256 * 16;
  const long long blocks = (static_cast<long long>(N) + per_block - 1) / per_block;
  if (blocks > 0) dot_bf16_acc_kernel<<<static_cast<unsigned>(blocks), 256>>>(loss, X, Y, N);
  cudaDeviceSynchronize();
}
