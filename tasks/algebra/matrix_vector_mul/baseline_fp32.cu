// Naive baseline: one thread per row of A, a plain FP32 loop over the row (64-bit indices).
#include <cuda_runtime.h>

__global__ void matrix_vector_mul_kernel(const float* A, const float* x, float* y, int M, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= M) return;
  const float* row = A + i * N;
  float acc = 0.0f;
  for (int j = 0; j < N; ++j) acc += row[j] * x[j];
  y[i] = acc;
}

extern "C" void matrix_vector_mul(const float* A, const float* x, float* y, int M, int N) {
  const int threads = 128;
  const long long blocks = (static_cast<long long>(M) + threads - 1) / threads;
  matrix_vector_mul_kernel<<<static_cast<unsigned>(blocks), threads>>>(A, x, y, M, N);
  cudaDeviceSynchronize();
}
