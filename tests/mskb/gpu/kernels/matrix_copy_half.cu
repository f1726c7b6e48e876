// Copies only the first half of the matrix: the rest keeps the poison (unwritten_output).
#include <cuda_runtime.h>

__global__ void copy_half(const float* A, float* B, long long total) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < total / 2) B[i] = A[i];
}

extern "C" void matrix_copy(float* A, float* B, int M, int N) {
  const long long total = static_cast<long long>(M) * N;
  copy_half<<<static_cast<unsigned>((total + 255) / 256), 256>>>(A, B, total);
}
