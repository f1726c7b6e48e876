// Naive baseline: one thread per element, bounds-checked, 64-bit index.
#include <cuda_runtime.h>

__global__ void relu_kernel(float* output, const float* input, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) output[i] = fmaxf(input[i], 0.0f);
}

extern "C" void RELU(float* output, const float* input, int N) {
  const int threads = 256;
  const long long blocks = (static_cast<long long>(N) + threads - 1) / threads;
  if (blocks > 0) relu_kernel<<<static_cast<unsigned>(blocks), threads>>>(output, input, N);
  cudaDeviceSynchronize();
}
