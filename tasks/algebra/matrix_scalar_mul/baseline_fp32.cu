// Naive baseline: one thread per element over the flattened M*N matrix (64-bit indices).
#include <cuda_runtime.h>

__global__ void matrix_scalar_mul_kernel(const float* A, float* B, float scalar, long long total) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < total) B[i] = scalar * A[i];
}

extern "C" void matrix_scalar_mul(const float* A, float* B, float scalar, int M, int N) {
  const long long total = static_cast<long long>(M) * N;
  const int threads = 256;
  const long long blocks = (total + threads - 1) / threads;
  matrix_scalar_mul_kernel<<<static_cast<unsigned>(blocks), threads>>>(A, B, scalar, total);
  cudaDeviceSynchronize();
}
