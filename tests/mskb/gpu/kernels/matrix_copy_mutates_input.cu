// Copies A into B, then zeroes A's first element: a read-only input modified (input_mutated).
#include <cuda_runtime.h>

__global__ void copy_then_clobber(float* A, float* B, long long total) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < total) B[i] = A[i];
}
__global__ void clobber(float* A) { A[0] = 0.0f; }

extern "C" void matrix_copy(float* A, float* B, int M, int N) {
  const long long total = static_cast<long long>(M) * N;
  copy_then_clobber<<<static_cast<unsigned>((total + 255) / 256), 256>>>(A, B, total);
  clobber<<<1, 1>>>(A);
}
