// Copies A into B with the last element nudged by one ulp: matrix_copy is exact (wrong_result).
#include <cuda_runtime.h>

__global__ void copy_nudged(const float* A, float* B, long long total) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < total) B[i] = i == total - 1 ? nextafterf(A[i], 2.0f) : A[i];
}

extern "C" void matrix_copy(float* A, float* B, int M, int N) {
  const long long total = static_cast<long long>(M) * N;
  copy_nudged<<<static_cast<unsigned>((total + 255) / 256), 256>>>(A, B, total);
}
