// Naive baseline: one thread per column; FP32 products atomically added into an FP32 scratch copy of
// y, then y[i] = bf16(y[i] + acc[i]) rounds each output once (y accumulates).
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
        std::fprintf(stderr, "spmv_csc_bf16: cannot allocate %zu floats of scratch\n", need);
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

__global__ void spmv_csc_bf16_kernel(int columns, const __nv_bfloat16* values, const int* row_indices, const int* col_offsets,
                                     const __nv_bfloat16* x, float* acc) {
  const long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= columns) return;
  const float xj = __bfloat162float(x[j]);
  for (int p = col_offsets[j]; p < col_offsets[j + 1]; ++p) atomicAdd(&acc[row_indices[p]], __bfloat162float(values[p]) * xj);
}

__global__ void spmv_csc_bf16_finish(int rows, const float* acc, __nv_bfloat16* y) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < rows) y[i] = __float2bfloat16(__bfloat162float(y[i]) + acc[i]);
}

extern "C" void spmv_csc_bf16(int rows, int columns, const __nv_bfloat16* values, const int* row_indices, const int* col_offsets,
                              const __nv_bfloat16* x, __nv_bfloat16* y) {
  if (rows <= 0) {
    cudaDeviceSynchronize();
    return;
  }
  const int threads = 256;
  float* acc = g_acc.get(static_cast<size_t>(rows));
  cudaMemsetAsync(acc, 0, static_cast<size_t>(rows) * sizeof(float), 0);
  if (columns > 0) {
    const long long blocks = (static_cast<long long>(columns) + threads - 1) / threads;
    spmv_csc_bf16_kernel<<<static_cast<unsigned>(blocks), threads>>>(columns, values, row_indices, col_offsets, x, acc);
  }
  const long long rblocks = (static_cast<long long>(rows) + threads - 1) / threads;
  spmv_csc_bf16_finish<<<static_cast<unsigned>(rblocks), threads>>>(rows, acc, y);
  cudaDeviceSynchronize();
}
