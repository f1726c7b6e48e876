// Naive baseline: one thread per column j; atomicAdd(values[p] * x[j]) into y[row] for each of the
// column's entries (columns share rows, so the updates must be atomic; y accumulates).
#include <cuda_runtime.h>

__global__ void spmv_csc_kernel(int columns, const float* values, const int* row_indices, const int* col_offsets, const float* x,
                                float* y) {
  const long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= columns) return;
  const float xj = x[j];
  for (int p = col_offsets[j]; p < col_offsets[j + 1]; ++p) atomicAdd(&y[row_indices[p]], values[p] * xj);
}

extern "C" void spmv_csc(int rows, int columns, const float* values, const int* row_indices, const int* col_offsets,
                         const float* x, float* y) {
  (void)rows;
  if (columns > 0) {
    const int threads = 256;
    const long long blocks = (static_cast<long long>(columns) + threads - 1) / threads;
    spmv_csc_kernel<<<static_cast<unsigned>(blocks), threads>>>(columns, values, row_indices, col_offsets, x, y);
  }
  cudaDeviceSynchronize();
}
