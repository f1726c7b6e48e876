// Bad input: asks for 4 TiB of scratch, ignores the failure and carries on -> out_of_memory.
#include <cuda_runtime.h>
__global__ void add(const float* A, const float* B, float* C, float* scratch, int N) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i] + (scratch ? 0.0f : 0.0f);
}
extern "C" void vector_add(const float* A, const float* B, float* C, int N) {
  float* scratch = nullptr;
  cudaMalloc(&scratch, 1ull << 42);
  add<<<(N + 255) / 256, 256>>>(A, B, C, scratch, N);
  cudaDeviceSynchronize();
}
