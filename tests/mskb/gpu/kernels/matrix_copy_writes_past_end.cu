// Copies A into B and writes one element past B's end: out_of_bounds (the guard zone changes).
#include <cuda_runtime.h>

__global__ void copy_one_more(const float* A, float* B, long long total) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < total) B[i] = A[i];
  if (i == total) B[i] = 1.0f;
}

extern "C" void matrix_copy(float* A, float* B, int M, int N) {
  const long long total = static_cast<long long>(M) * N;
  copy_one_more<<<static_cast<unsigned>((total + 256) / 256), 256>>>(A, B, total);
}
