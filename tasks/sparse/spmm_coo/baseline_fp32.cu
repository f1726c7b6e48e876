// Naive baseline: one thread per (stored entry, k); atomicAdd(values[e] * X[col][k]) into Y[row][k]
// (unsorted entries share rows, so the updates must be atomic; Y accumulates). 64-bit offsets.
#include <cuda_runtime.h>

__global__ void spmm_coo_kernel(int nnz, int K, const float* values, const int* row_indices, const int* col_indices,
                                const float* X, float* Y) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= static_cast<long long>(nnz) * K) return;
  const long long e = t / K, k = t - e * K;
  atomicAdd(&Y[static_cast<long long>(row_indices[e]) * K + k], values[e] * X[static_cast<long long>(col_indices[e]) * K + k]);
}

extern "C" void spmm_coo(int rows, int nnz, int K, const float* values, const int* row_indices, const int* col_indices,
                         const float* X, float* Y) {
  (void)rows;
  const long long total = static_cast<long long>(nnz) * K;
  if (total > 0) {
    const int threads = 256;
    const long long blocks = (total + threads - 1) / threads;
    spmm_coo_kernel<<<static_cast<unsigned>(blocks), threads>>>(nnz, K, values, row_indices, col_indices, X, Y);
  }
  cudaDeviceSynchronize();
}
