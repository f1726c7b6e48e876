// Naive baseline: one thread per element, bounds-checked, 64-bit index; 1 / (1 + expf(-x)) (overflow of
// expf(-x) gives 1/inf = 0, the right limit).
#include <cuda_runtime.h>

__device__ __forceinline__ float sigmoid_f(float x) { return 1.0f / (1.0f + expf(-x)); }

__global__ void sigmoid_kernel(float* out, const float* input, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) out[i] = sigmoid_f(input[i]);
}

extern "C" void sigmoid(float* out, const float* input, const int N) {
  const int threads = 256;
  const long long blocks = (static_cast<long long>(N) + threads - 1) / threads;
  if (blocks > 0) sigmoid_kernel<<<static_cast<unsigned>(blocks), threads>>>(out, input, N);
  cudaDeviceSynchronize();
}
