// mskb-expect: unwritten_output
// mskb-precision: fp32
// Shortcut: the paper's K is 4096, so each warp takes one row and 32 consecutive columns of Y and the
// grid covers rows * (K / 32) warps. Correct whenever K is a multiple of 32; for the held-out K = 33,
// 100, 257, 48 (and 1) the last K % 32 columns of every row are never written.
#include <cuda_runtime.h>

__global__ void spmm_csr_warp32(int rows, int K, const float* values, const int* col_indices, const int* row_offsets,
                                const float* X, float* Y) {
  const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  const long long chunks = K / 32;  // assumes K % 32 == 0
  if (warp >= static_cast<long long>(rows) * chunks) return;
  const long long i = warp / chunks, k = (warp % chunks) * 32 + lane;
  float sum = 0.0f;
  for (int p = row_offsets[i]; p < row_offsets[i + 1]; ++p) sum += values[p] * X[static_cast<long long>(col_indices[p]) * K + k];
  Y[i * K + k] = sum;
}

extern "C" void spmm_csr(int rows, int K, const float* values, const int* col_indices, const int* row_offsets, const float* X,
                         float* Y) {
  const long long threads_total = static_cast<long long>(rows) * (K / 32) * 32;
  const long long blocks = (threads_total + 255) / 256;
  if (blocks > 0) spmm_csr_warp32<<<static_cast<unsigned>(blocks), 256>>>(rows, K, values, col_indices, row_offsets, X, Y);
  cudaDeviceSynchronize();
}
