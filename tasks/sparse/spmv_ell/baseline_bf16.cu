// Naive baseline: one thread per row; bf16 loads, FP32 sum over the row's non-padding slots
// (col_ids = -1 anywhere in the row), one bf16 rounding on the store. y is overwritten.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void spmv_ell_bf16_kernel(int rows, int width, const __nv_bfloat16* values, const int* col_ids, const __nv_bfloat16* x,
                                     __nv_bfloat16* y) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  const long long base = i * width;
  float sum = 0.0f;
  for (int s = 0; s < width; ++s) {
    const int col = col_ids[base + s];
    if (col >= 0) sum += __bfloat162float(values[base + s]) * __bfloat162float(x[col]);
  }
  y[i] = __float2bfloat16(sum);
}

extern "C" void spmv_ell_bf16(int rows, int max_nnz_per_row, const __nv_bfloat16* values, const int* col_ids,
                              const __nv_bfloat16* x, __nv_bfloat16* y) {
  if (rows > 0) {
    const int threads = 256;
    const long long blocks = (static_cast<long long>(rows) + threads - 1) / threads;
    spmv_ell_bf16_kernel<<<static_cast<unsigned>(blocks), threads>>>(rows, max_nnz_per_row, values, col_ids, x, y);
  }
  cudaDeviceSynchronize();
}
