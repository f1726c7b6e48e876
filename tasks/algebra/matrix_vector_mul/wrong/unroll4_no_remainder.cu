// mskb-expect: wrong_result
// mskb-precision: fp32
// Shortcut: the row loop is unrolled by 4 with no remainder loop, assuming N % 4 == 0 (every paper N is a
// power of two). The last N % 4 products of each row are dropped on held-out shapes.
#include <cuda_runtime.h>

__global__ void mv_unroll4(const float* A, const float* x, float* y, int M, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= M) return;
  const float* row = A + i * N;
  float acc = 0.0f;
  for (int j = 0; j + 3 < N; j += 4) acc += row[j] * x[j] + row[j + 1] * x[j + 1] + row[j + 2] * x[j + 2] + row[j + 3] * x[j + 3];
  y[i] = acc;
}

extern "C" void matrix_vector_mul(const float* A, const float* x, float* y, int M, int N) {
  const int threads = 128;
  mv_unroll4<<<static_cast<unsigned>((static_cast<long long>(M) + threads - 1) / threads), threads>>>(A, x, y, M, N);
  cudaDeviceSynchronize();
}
