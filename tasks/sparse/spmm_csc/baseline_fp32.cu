// Naive baseline: one thread per (column j, k); walks column j and atomically adds
// values[p] * X[j][k] into Y[row][k] (columns share rows; Y accumulates). 64-bit offsets.
#include <cuda_runtime.h>

__global__ void spmm_csc_kernel(int columns, int K, const float* values, const int* row_indices, const int* col_offsets,
                                const float* X, float* Y) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= static_cast<long long>(columns) * K) return;
  const long long j = t / K, k = t - j * K;
  const float xjk = X[t];
  for (int p = col_offsets[j]; p < col_offsets[j + 1]; ++p)
    atomicAdd(&Y[static_cast<long long>(row_indices[p]) * K + k], values[p] * xjk);
}

extern "C" void spmm_csc(int rows, int columns, int K, const float* values, const int* row_indices, const int* col_offsets,
                         const float* X, float* Y) {
  (void)rows;
  const long long total = static_cast<long long>(columns) * K;
  if (total > 0) {
    const int threads = 256;
    spmm_csc_kernel<<<static_cast<unsigned>((total + threads - 1) / threads), threads>>>(columns, K, values, row_indices,
                                                                                         col_offsets, X, Y);
  }
  cudaDeviceSynchronize();
}
