// mskb-expect: unwritten_output
// mskb-precision: fp32
// Stores the index only for r < M - 1 (a bound copied from a kernel over neighbouring rows): the
// last row's idx keeps the harness's poison (all 0xFF bytes, -1 as an int64), which is reported as
// never written. Every value, and every other index, is right.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void index_one_short_kernel(const __half* x, float* vmax, long long* idx, int M, int N) {
  const long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= M) return;
  const __half* row = x + r * N;
  float best_v = -INFINITY;
  long long best_i = 0;
  for (long long j = 0; j < N; ++j) {
    const float v = __half2float(row[j]);
    if (v > best_v) {
      best_v = v;
      best_i = j;
    }
  }
  vmax[r] = best_v;
  if (r < M - 1) idx[r] = best_i;  // should be every row
}

extern "C" void row_argmax(const __half* x, float* vmax, long long* idx, int M, int N) {
  index_one_short_kernel<<<(M + 255) / 256, 256>>>(x, vmax, idx, M, N);
  cudaDeviceSynchronize();
}
