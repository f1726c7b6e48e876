// Bound by construction: FP32 compute. Each element runs 4096 dependent-free FMA chains in
// registers (8 independent accumulators) and touches memory once.
#include <cuda_runtime.h>
__global__ void fma_heavy(const float* A, const float* B, float* C, int N) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i >= N) return;
  const float a = A[i], b = B[i];
  float acc[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) acc[k] = a + static_cast<float>(k);
  for (int r = 0; r < 512; ++r)
#pragma unroll
    for (int k = 0; k < 8; ++k) acc[k] = fmaf(acc[k], 0.999f, b);
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < 8; ++k) s += acc[k];
  C[i] = s * 0.0f + a + b;
}
extern "C" void vector_add(const float* A, const float* B, float* C, int N) {
  fma_heavy<<<static_cast<unsigned>((N + 255) / 256), 256>>>(A, B, C, N);
  cudaDeviceSynchronize();
}
