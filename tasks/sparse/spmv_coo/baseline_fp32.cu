// Naive baseline: one thread per stored entry; atomicAdd(values[e] * x[col]) into y[row]
// (entries are unsorted and share rows, so the updates must be atomic; y accumulates).
#include <cuda_runtime.h>

__global__ void spmv_coo_kernel(int nnz, const float* values, const int* row_indices, const int* col_indices, const float* x,
                                float* y) {
  const long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e < nnz) atomicAdd(&y[row_indices[e]], values[e] * x[col_indices[e]]);
}

extern "C" void spmv_coo(int rows, int nnz, const float* values, const int* row_indices, const int* col_indices, const float* x,
                         float* y) {
  (void)rows;
  if (nnz > 0) {
    const int threads = 256;
    const long long blocks = (static_cast<long long>(nnz) + threads - 1) / threads;
    spmv_coo_kernel<<<static_cast<unsigned>(blocks), threads>>>(nnz, values, row_indices, col_indices, x, y);
  }
  cudaDeviceSynchronize();
}
