// mskb-expect: wrong_result
// mskb-precision: fp32
// Keeps the last maximum instead of the first (>= where the task's rule needs >): right on every
// row with one maximum, wrong on rows where two halves tie for it. Halves tie often (every paper
// shape has such rows: normal draws rounded to 11 significant bits), so idx comes out wrong.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void last_maximum_kernel(const __half* x, float* vmax, long long* idx, int M, int N) {
  const long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= M) return;
  const __half* row = x + r * N;
  float best_v = -INFINITY;
  long long best_i = 0;
  for (long long j = 0; j < N; ++j) {
    const float v = __half2float(row[j]);
    if (v >= best_v) {  // should be >: a later equal value replaces the first maximum
      best_v = v;
      best_i = j;
    }
  }
  vmax[r] = best_v;
  idx[r] = best_i;
}

extern "C" void row_argmax(const __half* x, float* vmax, long long* idx, int M, int N) {
  last_maximum_kernel<<<(M + 255) / 256, 256>>>(x, vmax, idx, M, N);
  cudaDeviceSynchronize();
}
