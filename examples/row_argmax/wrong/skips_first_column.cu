// mskb-expect: wrong_result
// mskb-precision: fp32
// Starts every row's scan at column 1 (an off-by-one): a row whose maximum is in column 0 gets
// another index and value, and a one-column row (the held-out N = 1 shapes) none at all: -inf.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void skips_first_column_kernel(const __half* x, float* vmax, long long* idx, int M, int N) {
  const long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= M) return;
  const __half* row = x + r * N;
  float best_v = -INFINITY;
  long long best_i = 0;
  for (long long j = 1; j < N; ++j) {  // should start at 0
    const float v = __half2float(row[j]);
    if (v > best_v) {
      best_v = v;
      best_i = j;
    }
  }
  vmax[r] = best_v;
  idx[r] = best_i;
}

extern "C" void row_argmax(const __half* x, float* vmax, long long* idx, int M, int N) {
  skips_first_column_kernel<<<(M + 255) / 256, 256>>>(x, vmax, idx, M, N);
  cudaDeviceSynchronize();
}
