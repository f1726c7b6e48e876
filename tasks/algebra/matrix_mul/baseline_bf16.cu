// Naive baseline: one thread per element of C; loads bf16 A and B, multiplies and accumulates in FP32,
// rounds to bf16 once on the store. 16x16 thread blocks, bounds-checked, 64-bit offsets.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void matrix_mul_bf16_kernel(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                       int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  const __nv_bfloat16* a = A + static_cast<long long>(row) * K;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += __bfloat162float(a[k]) * __bfloat162float(B[static_cast<long long>(k) * N + col]);
  C[static_cast<long long>(row) * N + col] = __float2bfloat16(acc);
}

extern "C" void matrix_mul_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K) {
  const dim3 threads(16, 16);
  const dim3 blocks((N + 15) / 16, (M + 15) / 16);
  matrix_mul_bf16_kernel<<<blocks, threads>>>(A, B, C, M, N, K);
  cudaDeviceSynchronize();
}
