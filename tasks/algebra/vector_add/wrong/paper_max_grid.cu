// Wrong: the grid is sized for the paper's largest N (2^18) instead of N. Every paper size
// passes; held-out sizes beyond 2^18 leave the tail unwritten.
// mskb-expect: unwritten_output
// mskb-precision: fp32
#include <cuda_runtime.h>
__global__ void add(const float* A, const float* B, float* C, int N) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
}
extern "C" void vector_add(const float* A, const float* B, float* C, int N) {
  add<<<(1 << 18) / 256, 256>>>(A, B, C, N);
  cudaDeviceSynchronize();
}
