// mskb-expect: unwritten_output
// mskb-precision: fp32 bf16
// Shortcut: hard-codes the paper's largest matrix. The grid is fixed at 32768 / 256 = 128 blocks
// (one thread per row, sized for the paper's maximum of 2^15 rows); rows beyond 32768 are never
// computed. Passes every paper shape and every held-out shape up to 32768 rows; y stays unwritten for
// the rows past 32768 of the larger held-out matrices.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ void store(float* p, float v) { *p = v; }
__device__ __forceinline__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

constexpr int kPaperMaxRows = 1 << 15;

template <class T>
__global__ void spmv_fixed(int rows, const T* values, const int* col_indices, const int* row_offsets, const T* x, T* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  float acc = 0.0f;
  for (int p = row_offsets[i]; p < row_offsets[i + 1]; ++p) acc += to_f(values[p]) * to_f(x[col_indices[p]]);
  store(y + i, acc);
}

extern "C" void spmv_csr(int rows, const float* values, const int* col_indices, const int* row_offsets, const float* x,
                         float* y) {
  spmv_fixed<float><<<kPaperMaxRows / 256, 256>>>(rows, values, col_indices, row_offsets, x, y);
  cudaDeviceSynchronize();
}
extern "C" void spmv_csr_bf16(int rows, const __nv_bfloat16* values, const int* col_indices, const int* row_offsets,
                              const __nv_bfloat16* x, __nv_bfloat16* y) {
  spmv_fixed<__nv_bfloat16><<<kPaperMaxRows / 256, 256>>>(rows, values, col_indices, row_offsets, x, y);
  cudaDeviceSynchronize();
}
