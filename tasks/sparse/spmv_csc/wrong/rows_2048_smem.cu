// mskb-expect: wrong_result
// mskb-precision: fp32
// Shortcut: the paper's CSC matrices all have 2048 rows, so each block privatizes y in a fixed
// 2048-float shared array (shared-memory atomics), then adds it to y; entries of rows past the array
// are dropped "for safety". Correct whenever rows <= 2048 (the whole paper sweep); wrong for the
// held-out matrices with 3001 and 50000 rows.
#include <cuda_runtime.h>

constexpr int kRows = 2048;

__global__ void spmv_csc_smem_y(int rows, int columns, const float* values, const int* row_indices, const int* col_offsets,
                                const float* x, float* y) {
  __shared__ float s_y[kRows];
  for (int i = threadIdx.x; i < kRows; i += blockDim.x) s_y[i] = 0.0f;
  __syncthreads();
  const long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < columns)
    for (int p = col_offsets[j]; p < col_offsets[j + 1]; ++p)
      if (row_indices[p] < kRows) atomicAdd(&s_y[row_indices[p]], values[p] * x[j]);
  __syncthreads();
  const int n = rows < kRows ? rows : kRows;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    if (s_y[i] != 0.0f) atomicAdd(&y[i], s_y[i]);
}

extern "C" void spmv_csc(int rows, int columns, const float* values, const int* row_indices, const int* col_offsets,
                         const float* x, float* y) {
  if (columns > 0) {
    const long long blocks = (static_cast<long long>(columns) + 255) / 256;
    spmv_csc_smem_y<<<static_cast<unsigned>(blocks), 256>>>(rows, columns, values, row_indices, col_offsets, x, y);
  }
  cudaDeviceSynchronize();
}
