// Naive baseline: one thread per element of C, a plain loop over K in FP32, 16x16 thread blocks
// covering C (row = y, column = x so a warp reads B coalesced), bounds-checked, 64-bit offsets.
#include <cuda_runtime.h>

__global__ void matrix_mul_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  const float* a = A + static_cast<long long>(row) * K;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += a[k] * B[static_cast<long long>(k) * N + col];
  C[static_cast<long long>(row) * N + col] = acc;
}

extern "C" void matrix_mul(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 threads(16, 16);
  const dim3 blocks((N + 15) / 16, (M + 15) / 16);
  matrix_mul_kernel<<<blocks, threads>>>(A, B, C, M, N, K);
  cudaDeviceSynchronize();
}
