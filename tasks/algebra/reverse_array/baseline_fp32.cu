// Naive baseline: one thread per output element, output[i] = input[N-1-i].
#include <cuda_runtime.h>

__global__ void reverse_array_kernel(float* output, const float* input, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) output[i] = input[N - 1 - i];
}

extern "C" void reverse_array(float* output, float* input, int N) {
  const int threads = 256;
  const long long blocks = (static_cast<long long>(N) + threads - 1) / threads;
  reverse_array_kernel<<<static_cast<unsigned>(blocks), threads>>>(output, input, N);
  cudaDeviceSynchronize();
}
