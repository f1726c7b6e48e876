// Naive baseline: one thread per element of C (16x16 blocks, x = column), bf16 loads, FP32 accumulation,
// one rounding to bf16. No shared memory, no tiling; 64-bit offsets.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void square_matrix_mul_bf16_kernel(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= M) return;
  const __nv_bfloat16* a = A + static_cast<long long>(row) * M;
  float acc = 0.0f;
  for (int k = 0; k < M; ++k) acc += __bfloat162float(a[k]) * __bfloat162float(B[static_cast<long long>(k) * M + col]);
  C[static_cast<long long>(row) * M + col] = __float2bfloat16(acc);
}

extern "C" void square_matrix_mul_bf16(__nv_bfloat16* A, __nv_bfloat16* B, __nv_bfloat16* C, int M) {
  const dim3 threads(16, 16);
  const dim3 blocks((M + 15) / 16, (M + 15) / 16);
  square_matrix_mul_bf16_kernel<<<blocks, threads>>>(A, B, C, M);
  cudaDeviceSynchronize();
}
