// mskb-expect: wrong_result
// mskb-precision: bf16
// Shortcut: accumulates in __nv_bfloat16. Each thread adds up 512 consecutive weighted samples w[i]*y[i]
// (w = 1, 4, 2 in units of h/3) in a bf16 register, so every add rounds to 8 significant bits while the
// partial sums reach the hundreds; only the per-thread partials go through an FP32 atomicAdd. The result
// is off by several percent - far outside one bf16 rounding of the answer.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "mskb_rounding.cuh"

using mskb_rounding::fma_bf16;

constexpr int kPerThread = 512;

__device__ float weight3(long long i, long long n) {  // h/3 units; even N: Simpson on 0..N-2 + last parabola
  const long long last = (n % 2 == 1) ? n - 1 : n - 2;
  float w = 0.0f;
  if (i <= last) w = (i == 0 || i == last) ? 1.0f : ((i % 2 == 1) ? 4.0f : 2.0f);
  if (n % 2 == 0) {
    if (i == n - 3) w -= 0.25f;
    if (i == n - 2) w += 2.0f;
    if (i == n - 1) w += 1.25f;
  }
  return w;
}

__global__ void bf16_sum_kernel(const __nv_bfloat16* y, float* sum, int N) {
  const long long base = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * kPerThread;
  __nv_bfloat16 acc = __float2bfloat16(0.0f);
  for (int t = 0; t < kPerThread; ++t) {
    const long long i = base + t;
    if (i < N) acc = fma_bf16(__float2bfloat16(weight3(i, N)), y[i], acc);
  }
  atomicAdd(sum, __bfloat162float(acc));
}

__global__ void finish(__nv_bfloat16* result, const float* sum, float scale) {
  result[0] = __float2bfloat16(__bfloat162float(result[0]) + scale * sum[0]);
}

extern "C" void simpson_int_bf16(const __nv_bfloat16* y_samples, __nv_bfloat16* result, float a, float b, int N) {
  if (N < 3) return;
  float* sum = nullptr;
  cudaMalloc(&sum, sizeof(float));
  cudaMemset(sum, 0, sizeof(float));
  const long long threads = (static_cast<long long>(N) + kPerThread - 1) / kPerThread;
  bf16_sum_kernel<<<static_cast<unsigned>((threads + 127) / 128), 128>>>(y_samples, sum, N);
  finish<<<1, 1>>>(result, sum, (b - a) / static_cast<float>(N - 1) / 3.0f);
  cudaDeviceSynchronize();
  cudaFree(sum);
}
