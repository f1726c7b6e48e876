// Naive baseline: one thread per element, bounds-checked, 64-bit index; tanhf.
#include <cuda_runtime.h>

__device__ __forceinline__ float row_tanh_f(float x) { return tanhf(x); }

__global__ void row_tanh_kernel(float* out, const float* input, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) out[i] = row_tanh_f(input[i]);
}

extern "C" void row_tanh(float* out, const float* input, const int N) {
  const int threads = 256;
  const long long blocks = (static_cast<long long>(N) + threads - 1) / threads;
  if (blocks > 0) row_tanh_kernel<<<static_cast<unsigned>(blocks), threads>>>(out, input, N);
  cudaDeviceSynchronize();
}
