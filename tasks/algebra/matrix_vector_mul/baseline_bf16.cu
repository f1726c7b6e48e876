// Naive baseline: one thread per row of A; bf16 loads, FP32 accumulation, one rounding to bf16.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void matrix_vector_mul_bf16_kernel(const __nv_bfloat16* A, const __nv_bfloat16* x, __nv_bfloat16* y, int M, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= M) return;
  const __nv_bfloat16* row = A + i * N;
  float acc = 0.0f;
  for (int j = 0; j < N; ++j) acc += __bfloat162float(row[j]) * __bfloat162float(x[j]);
  y[i] = __float2bfloat16(acc);
}

extern "C" void matrix_vector_mul_bf16(const __nv_bfloat16* A, const __nv_bfloat16* x, __nv_bfloat16* y, int M, int N) {
  const int threads = 128;
  const long long blocks = (static_cast<long long>(M) + threads - 1) / threads;
  matrix_vector_mul_bf16_kernel<<<static_cast<unsigned>(blocks), threads>>>(A, x, y, M, N);
  cudaDeviceSynchronize();
}
