// mskb-expect: wrong_result
// mskb-precision: bf16
// Shortcut: accumulates in __nv_bfloat16. Each thread sums 1024 consecutive samples in a bf16 register
// (every add rounds to 8 significant bits; partial sums reach ~100 where the bf16 spacing is 0.5) and
// only the per-thread partials go through an FP32 atomicAdd. The result drifts by several percent,
// far outside one bf16 rounding of the answer. With N = 1 there is nothing to round and it is exact.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

constexpr int kPerThread = 1024;

__global__ void bf16_sum_kernel(const __nv_bfloat16* y, float* sum, int N) {
  const long long base = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * kPerThread;
  __nv_bfloat16 acc = __float2bfloat16(0.0f);
  for (int t = 0; t < kPerThread; ++t)
    if (base + t < N) acc = __hadd(acc, y[base + t]);
  atomicAdd(sum, __bfloat162float(acc));
}

__global__ void finish(__nv_bfloat16* result, const float* sum, float scale) {
  result[0] = __float2bfloat16(__bfloat162float(result[0]) + scale * sum[0]);
}

extern "C" void monte_carlo_int_bf16(const __nv_bfloat16* y_samples, __nv_bfloat16* result, float a, float b, int N) {
  float* sum = nullptr;
  cudaMalloc(&sum, sizeof(float));
  cudaMemset(sum, 0, sizeof(float));
  const long long threads = (static_cast<long long>(N) + kPerThread - 1) / kPerThread;
  const long long blocks = (threads + 127) / 128;
  bf16_sum_kernel<<<static_cast<unsigned>(blocks), 128>>>(y_samples, sum, N);
  finish<<<1, 1>>>(result, sum, (b - a) / static_cast<float>(N));
  cudaDeviceSynchronize();
  cudaFree(sum);
}
