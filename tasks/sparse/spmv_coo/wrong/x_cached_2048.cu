// mskb-expect: wrong_result
// mskb-precision: fp32
// Shortcut: the paper's matrices all have 2048 columns and the entry point is not told cols, so x
// is staged in a fixed 2048-float shared array (column indices clamped to it "for safety").
// Correct for every matrix with at most 2048 columns (the whole paper sweep); wrong for the
// held-out matrices with 3001 and 5000 columns, whose entries past column 2047 read x[2047].
#include <cuda_runtime.h>

constexpr int kCols = 2048;

__global__ void spmv_coo_smem_x(int nnz, const float* values, const int* row_indices, const int* col_indices, const float* x,
                                float* y) {
  __shared__ float s_x[kCols];
  for (int i = threadIdx.x; i < kCols; i += blockDim.x) s_x[i] = x[i];  // (reads past a shorter x are never used)
  __syncthreads();
  const long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e < nnz) atomicAdd(&y[row_indices[e]], values[e] * s_x[min(col_indices[e], kCols - 1)]);
}

extern "C" void spmv_coo(int rows, int nnz, const float* values, const int* row_indices, const int* col_indices, const float* x,
                         float* y) {
  (void)rows;
  if (nnz > 0) {
    const long long blocks = (static_cast<long long>(nnz) + 255) / 256;
    spmv_coo_smem_x<<<static_cast<unsigned>(blocks), 256>>>(nnz, values, row_indices, col_indices, x, y);
  }
  cudaDeviceSynchronize();
}
