// mskb-expect: wrong_result
// mskb-precision: fp32
// Shortcut: treats COO like a row-sorted format and updates y[row] with a plain read-modify-write
// instead of an atomic. Entries are unsorted and many share a row, so two threads of a warp that
// hit the same row both read the old y[row] and one update is lost. Harmless only when every row
// has a single entry (the 1 x 1 held-out shape).
#include <cuda_runtime.h>

__global__ void spmv_coo_racy(int nnz, const float* values, const int* row_indices, const int* col_indices, const float* x,
                              float* y) {
  const long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e < nnz) {
    const int r = row_indices[e];
    y[r] = y[r] + values[e] * x[col_indices[e]];  // not atomic: lost updates
  }
}

extern "C" void spmv_coo(int rows, int nnz, const float* values, const int* row_indices, const int* col_indices, const float* x,
                         float* y) {
  (void)rows;
  if (nnz > 0) {
    const long long blocks = (static_cast<long long>(nnz) + 255) / 256;
    spmv_coo_racy<<<static_cast<unsigned>(blocks), 256>>>(nnz, values, row_indices, col_indices, x, y);
  }
  cudaDeviceSynchronize();
}
