// mskb-expect: wrong_result
// mskb-precision: fp32
// Shortcut: treats the COO entries as sorted by row (as many COO producers emit them) to avoid
// atomics: the first entry of each run of equal rows sums the run and stores Y[row][k]. The entries
// are unsorted, so most rows appear in several runs whose stores overwrite each other and only one
// run's sum survives. Harmless only when every row's entries are contiguous (the 1 x 1 held-out shape).
#include <cuda_runtime.h>

__global__ void spmm_coo_runs(int nnz, int K, const float* values, const int* row_indices, const int* col_indices, const float* X,
                              float* Y) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= static_cast<long long>(nnz) * K) return;
  const long long e = t / K, k = t - e * K;
  const int r = row_indices[e];
  if (e > 0 && row_indices[e - 1] == r) return;  // not the head of a run
  float sum = 0.0f;
  for (long long q = e; q < nnz && row_indices[q] == r; ++q) sum += values[q] * X[static_cast<long long>(col_indices[q]) * K + k];
  Y[static_cast<long long>(r) * K + k] = sum;  // "the row's only run"
}

extern "C" void spmm_coo(int rows, int nnz, int K, const float* values, const int* row_indices, const int* col_indices,
                         const float* X, float* Y) {
  (void)rows;
  const long long total = static_cast<long long>(nnz) * K;
  if (total > 0)
    spmm_coo_runs<<<static_cast<unsigned>((total + 255) / 256), 256>>>(nnz, K, values, row_indices, col_indices, X, Y);
  cudaDeviceSynchronize();
}
