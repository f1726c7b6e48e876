// Naive baseline: one thread per element of B (coalesced writes, strided reads), 64-bit indices.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void matrix_transpose_bf16_kernel(const __nv_bfloat16* A, __nv_bfloat16* B, int M, int N) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx < static_cast<long long>(M) * N) {
    const long long j = idx / M, i = idx % M;  // B[j][i] = A[i][j]
    B[idx] = A[i * N + j];
  }
}

extern "C" void matrix_transpose_bf16(const __nv_bfloat16* A, __nv_bfloat16* B, int M, int N) {
  const long long total = static_cast<long long>(M) * N;
  const int threads = 256;
  const long long blocks = (total + threads - 1) / threads;
  matrix_transpose_bf16_kernel<<<static_cast<unsigned>(blocks), threads>>>(A, B, M, N);
  cudaDeviceSynchronize();
}
