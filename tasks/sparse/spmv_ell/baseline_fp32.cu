// Naive baseline: one thread per row; walks all max_nnz_per_row slots of the row and skips padding
// (col_ids = -1, which may sit anywhere in the row). y is overwritten.
#include <cuda_runtime.h>

__global__ void spmv_ell_kernel(int rows, int width, const float* values, const int* col_ids, const float* x, float* y) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  const long long base = i * width;
  float sum = 0.0f;
  for (int s = 0; s < width; ++s) {
    const int col = col_ids[base + s];
    if (col >= 0) sum += values[base + s] * x[col];
  }
  y[i] = sum;
}

extern "C" void spmv_ell(int rows, int max_nnz_per_row, const float* values, const int* col_ids, const float* x, float* y) {
  if (rows > 0) {
    const int threads = 256;
    const long long blocks = (static_cast<long long>(rows) + threads - 1) / threads;
    spmv_ell_kernel<<<static_cast<unsigned>(blocks), threads>>>(rows, max_nnz_per_row, values, col_ids, x, y);
  }
  cudaDeviceSynchronize();
}
