// Naive baseline: one thread per output Y[i][k]; bf16 loads, FP32 sum over row i's non-padding slots
// (col_ids = -1 anywhere in the row), one bf16 rounding on the store. Y is overwritten; 64-bit offsets.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void spmm_ell_bf16_kernel(int rows, int width, int K, const __nv_bfloat16* values, const int* col_ids,
                                     const __nv_bfloat16* X, __nv_bfloat16* Y) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= static_cast<long long>(rows) * K) return;
  const long long i = t / K, k = t - i * K, base = i * width;
  float sum = 0.0f;
  for (int s = 0; s < width; ++s) {
    const int col = col_ids[base + s];
    if (col >= 0) sum += __bfloat162float(values[base + s]) * __bfloat162float(X[static_cast<long long>(col) * K + k]);
  }
  Y[t] = __float2bfloat16(sum);
}

extern "C" void spmm_ell_bf16(int rows, int max_nnz_per_row, int K, const __nv_bfloat16* values, const int* col_ids,
                              const __nv_bfloat16* X, __nv_bfloat16* Y) {
  const long long total = static_cast<long long>(rows) * K;
  if (total > 0) {
    const int threads = 256;
    spmm_ell_bf16_kernel<<<static_cast<unsigned>((total + threads - 1) / threads), threads>>>(rows, max_nnz_per_row, K, values,
                                                                                              col_ids, X, Y);
  }
  cudaDeviceSynchronize();
}
