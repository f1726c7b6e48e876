// Naive baseline: one thread per row walks its CSR entries and accumulates in FP32; every row's y is
// written (0 for an empty row). Grid sized from rows, bounds-checked.
#include <cuda_runtime.h>

__global__ void spmv_csr_kernel(int rows, const float* values, const int* col_indices, const int* row_offsets, const float* x,
                                float* y) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  float acc = 0.0f;
  for (int p = row_offsets[i]; p < row_offsets[i + 1]; ++p) acc += values[p] * x[col_indices[p]];
  y[i] = acc;
}

extern "C" void spmv_csr(int rows, const float* values, const int* col_indices, const int* row_offsets, const float* x,
                         float* y) {
  const int threads = 256;
  const long long blocks = (static_cast<long long>(rows) + threads - 1) / threads;
  if (blocks > 0) spmv_csr_kernel<<<static_cast<unsigned>(blocks), threads>>>(rows, values, col_indices, row_offsets, x, y);
  cudaDeviceSynchronize();
}
