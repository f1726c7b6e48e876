// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: treats CSC like CSR and stores Y[row][k] = values[p] * X[j][k] (no atomics, no
// accumulation), so each Y element keeps one column's contribution instead of the sum over its row.
// Harmless only when every row has at most one entry (the 1 x 1 held-out shape).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

template <class T>
__device__ float to_f(T v);
template <>
__device__ float to_f<float>(float v) {
  return v;
}
template <>
__device__ float to_f<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
__device__ void store(float* p, float v) { *p = v; }
__device__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

template <class T>
__global__ void spmm_csc_overwrite(int columns, int K, const T* values, const int* row_indices, const int* col_offsets,
                                   const T* X, T* Y) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= static_cast<long long>(columns) * K) return;
  const long long j = t / K, k = t - j * K;
  for (int p = col_offsets[j]; p < col_offsets[j + 1]; ++p)
    store(&Y[static_cast<long long>(row_indices[p]) * K + k], to_f(values[p]) * to_f(X[t]));
}

template <class T>
void launch(int columns, int K, const T* values, const int* row_indices, const int* col_offsets, const T* X, T* Y) {
  const long long total = static_cast<long long>(columns) * K;
  if (total > 0)
    spmm_csc_overwrite<T>
        <<<static_cast<unsigned>((total + 255) / 256), 256>>>(columns, K, values, row_indices, col_offsets, X, Y);
  cudaDeviceSynchronize();
}

extern "C" void spmm_csc(int rows, int columns, int K, const float* values, const int* row_indices, const int* col_offsets,
                         const float* X, float* Y) {
  (void)rows;
  launch(columns, K, values, row_indices, col_offsets, X, Y);
}

extern "C" void spmm_csc_bf16(int rows, int columns, int K, const __nv_bfloat16* values, const int* row_indices,
                              const int* col_offsets, const __nv_bfloat16* X, __nv_bfloat16* Y) {
  (void)rows;
  launch(columns, K, values, row_indices, col_offsets, X, Y);
}
