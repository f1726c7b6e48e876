// Naive baseline: one thread per element, bounds-checked, 64-bit index; x > 0 ? x : alpha * x; loads bf16,
// computes in FP32, stores bf16 once.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float leaky_relu_bf16_f(float x, float alpha) { return x > 0.0f ? x : alpha * x; }

__global__ void leaky_relu_bf16_kernel(__nv_bfloat16* output, const __nv_bfloat16* input, int N, float alpha) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) output[i] = __float2bfloat16(leaky_relu_bf16_f(__bfloat162float(input[i]), alpha));
}

extern "C" void leaky_RELU_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, const int N, float alpha) {
  const int threads = 256;
  const long long blocks = (static_cast<long long>(N) + threads - 1) / threads;
  if (blocks > 0) leaky_relu_bf16_kernel<<<static_cast<unsigned>(blocks), threads>>>(output, input, N, alpha);
  cudaDeviceSynchronize();
}
