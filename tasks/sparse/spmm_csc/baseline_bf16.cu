// Naive baseline: one thread per (column j, k); FP32 products atomically added into an FP32 scratch
// copy of Y, then Y = bf16(Y + acc) rounds each output once (Y accumulates). 64-bit offsets.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace {

// FP32 accumulator, grown on demand and freed at exit.
struct Scratch {
  float* p = nullptr;
  size_t n = 0;
  float* get(size_t need) {
    if (need > n) {
      if (p) cudaFree(p);
      p = nullptr;
      n = 0;
      if (cudaMalloc(&p, need * sizeof(float)) != cudaSuccess) {
        std::fprintf(stderr, "spmm_csc_bf16: cannot allocate %zu floats of scratch\n", need);
        std::abort();
      }
      n = need;
    }
    return p;
  }
  ~Scratch() {
    if (p) cudaFree(p);
  }
};
Scratch g_acc;

}  // namespace

__global__ void spmm_csc_bf16_kernel(int columns, int K, const __nv_bfloat16* values, const int* row_indices,
                                     const int* col_offsets, const __nv_bfloat16* X, float* acc) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= static_cast<long long>(columns) * K) return;
  const long long j = t / K, k = t - j * K;
  const float xjk = __bfloat162float(X[t]);
  for (int p = col_offsets[j]; p < col_offsets[j + 1]; ++p)
    atomicAdd(&acc[static_cast<long long>(row_indices[p]) * K + k], __bfloat162float(values[p]) * xjk);
}

__global__ void spmm_csc_bf16_finish(long long n, const float* acc, __nv_bfloat16* Y) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) Y[i] = __float2bfloat16(__bfloat162float(Y[i]) + acc[i]);
}

extern "C" void spmm_csc_bf16(int rows, int columns, int K, const __nv_bfloat16* values, const int* row_indices,
                              const int* col_offsets, const __nv_bfloat16* X, __nv_bfloat16* Y) {
  const long long out = static_cast<long long>(rows) * K, total = static_cast<long long>(columns) * K;
  if (out <= 0) {
    cudaDeviceSynchronize();
    return;
  }
  const int threads = 256;
  float* acc = g_acc.get(static_cast<size_t>(out));
  cudaMemsetAsync(acc, 0, static_cast<size_t>(out) * sizeof(float), 0);
  if (total > 0)
    spmm_csc_bf16_kernel<<<static_cast<unsigned>((total + threads - 1) / threads), threads>>>(columns, K, values, row_indices,
                                                                                              col_offsets, X, acc);
  spmm_csc_bf16_finish<<<static_cast<unsigned>((out + threads - 1) / threads), threads>>>(out, acc, Y);
  cudaDeviceSynchronize();
}
