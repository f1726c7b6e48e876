// Naive baseline: one thread per element, grid-stride-free, bounds-checked.
#include <cuda_runtime.h>

__global__ void vector_add_kernel(const float* A, const float* B, float* C, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
}

extern "C" void vector_add(const float* A, const float* B, float* C, int N) {
  const int threads = 256;
  const long long blocks = (static_cast<long long>(N) + threads - 1) / threads;
  vector_add_kernel<<<static_cast<unsigned>(blocks), threads>>>(A, B, C, N);
  cudaDeviceSynchronize();
}
