// mskb-expect: unwritten_output
// mskb-precision: fp32 bf16
// Shortcut: a warp per row that returns early when the row has no entries ("nothing to do"),
// forgetting that y is overwritten, not accumulated: an empty row must still get y[i] = 0. The paper's
// matrices have ~20 entries in every row, so it passes them; the skewed held-out matrices have empty
// rows, whose y stays unwritten.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ void store(float* p, float v) { *p = v; }
__device__ __forceinline__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

template <class T>
__global__ void spmv_warp_per_row(int rows, const T* values, const int* col_indices, const int* row_offsets, const T* x, T* y) {
  const long long row = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x & 31;
  if (row >= rows) return;
  const int begin = row_offsets[row], end = row_offsets[row + 1];
  if (begin == end) return;  // the shortcut
  float acc = 0.0f;
  for (int p = begin + lane; p < end; p += 32) acc += to_f(values[p]) * to_f(x[col_indices[p]]);
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
  if (lane == 0) store(y + row, acc);
}

template <class T>
void run(int rows, const T* values, const int* col_indices, const int* row_offsets, const T* x, T* y) {
  const long long blocks = (static_cast<long long>(rows) * 32 + 255) / 256;
  if (blocks > 0) spmv_warp_per_row<T><<<static_cast<unsigned>(blocks), 256>>>(rows, values, col_indices, row_offsets, x, y);
  cudaDeviceSynchronize();
}

extern "C" void spmv_csr(int rows, const float* values, const int* col_indices, const int* row_offsets, const float* x,
                         float* y) {
  run(rows, values, col_indices, row_offsets, x, y);
}
extern "C" void spmv_csr_bf16(int rows, const __nv_bfloat16* values, const int* col_indices, const int* row_offsets,
                              const __nv_bfloat16* x, __nv_bfloat16* y) {
  run(rows, values, col_indices, row_offsets, x, y);
}
