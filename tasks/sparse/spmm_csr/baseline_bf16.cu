// Naive baseline: one thread per output Y[i][k]; bf16 loads, FP32 sum over row i, one bf16
// rounding on the store. Y is overwritten; 64-bit offsets.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void spmm_csr_bf16_kernel(int rows, int K, const __nv_bfloat16* values, const int* col_indices, const int* row_offsets,
                                     const __nv_bfloat16* X, __nv_bfloat16* Y) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= static_cast<long long>(rows) * K) return;
  const long long i = t / K, k = t - i * K;
  float sum = 0.0f;
  for (int p = row_offsets[i]; p < row_offsets[i + 1]; ++p)
    sum += __bfloat162float(values[p]) * __bfloat162float(X[static_cast<long long>(col_indices[p]) * K + k]);
  Y[t] = __float2bfloat16(sum);
}

extern "C" void spmm_csr_bf16(int rows, int K, const __nv_bfloat16* values, const int* col_indices, const int* row_offsets,
                              const __nv_bfloat16* X, __nv_bfloat16* Y) {
  const long long total = static_cast<long long>(rows) * K;
  if (total > 0) {
    const int threads = 256;
    const long long blocks = (total + threads - 1) / threads;
    spmm_csr_bf16_kernel<<<static_cast<unsigned>(blocks), threads>>>(rows, K, values, col_indices, row_offsets, X, Y);
  }
  cudaDeviceSynchronize();
}
