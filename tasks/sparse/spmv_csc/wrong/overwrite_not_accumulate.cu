// mskb-expect: wrong_result
// mskb-precision: fp32
// Shortcut: treats CSC like CSR and stores y[row] = values[p] * x[j] (no atomics, no accumulation),
// so each y element keeps only one column's contribution instead of the sum over its row. Harmless
// only when every row has at most one entry (the 1 x 1 held-out shape).
#include <cuda_runtime.h>

__global__ void spmv_csc_overwrite(int columns, const float* values, const int* row_indices, const int* col_offsets,
                                   const float* x, float* y) {
  const long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= columns) return;
  for (int p = col_offsets[j]; p < col_offsets[j + 1]; ++p) y[row_indices[p]] = values[p] * x[j];
}

extern "C" void spmv_csc(int rows, int columns, const float* values, const int* row_indices, const int* col_offsets,
                         const float* x, float* y) {
  (void)rows;
  if (columns > 0) {
    const long long blocks = (static_cast<long long>(columns) + 255) / 256;
    spmv_csc_overwrite<<<static_cast<unsigned>(blocks), 256>>>(columns, values, row_indices, col_offsets, x, y);
  }
  cudaDeviceSynchronize();
}
