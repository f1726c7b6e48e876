// Naive baseline: one thread per element of C (16x16 blocks, x = column for coalesced B loads), a plain
// FP32 loop over k. No shared memory, no tiling; 64-bit offsets.
#include <cuda_runtime.h>

__global__ void square_matrix_mul_kernel(const float* A, const float* B, float* C, int M) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= M) return;
  const float* a = A + static_cast<long long>(row) * M;
  float acc = 0.0f;
  for (int k = 0; k < M; ++k) acc += a[k] * B[static_cast<long long>(k) * M + col];
  C[static_cast<long long>(row) * M + col] = acc;
}

extern "C" void square_matrix_mul(float* A, float* B, float* C, int M) {
  const dim3 threads(16, 16);
  const dim3 blocks((M + 15) / 16, (M + 15) / 16);
  square_matrix_mul_kernel<<<blocks, threads>>>(A, B, C, M);
  cudaDeviceSynchronize();
}
