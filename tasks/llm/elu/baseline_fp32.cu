// Naive baseline: one thread per element, bounds-checked, 64-bit index; x > 0 ? x : alpha * expm1f(x).
#include <cuda_runtime.h>

__device__ __forceinline__ float elu_f(float x, float alpha) { return x > 0.0f ? x : alpha * expm1f(x); }

__global__ void elu_kernel(float* output, const float* input, int N, float alpha) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) output[i] = elu_f(input[i], alpha);
}

extern "C" void elu(float* output, const float* input, const int N, float alpha) {
  const int threads = 256;
  const long long blocks = (static_cast<long long>(N) + threads - 1) / threads;
  if (blocks > 0) elu_kernel<<<static_cast<unsigned>(blocks), threads>>>(output, input, N, alpha);
  cudaDeviceSynchronize();
}
