// mskb-expect: unwritten_output
// mskb-precision: fp32 bf16
// Shortcut: a single-block scan (1024 threads, each scanning a chunk of at most 256 elements, block-level
// scan of the chunk sums in shared memory). Correct up to N = 2^18 = 1024 * 256 (the whole paper sweep);
// beyond that, the elements from 2^18 on are never written.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float load(const float* p, long long i) { return p[i]; }
__device__ __forceinline__ float load(const __nv_bfloat16* p, long long i) { return __bfloat162float(p[i]); }
__device__ __forceinline__ void store(float* p, long long i, float v) { p[i] = v; }
__device__ __forceinline__ void store(__nv_bfloat16* p, long long i, float v) { p[i] = __float2bfloat16(v); }

template <class T>
__global__ void scan_one_block(const T* in, T* out, int N) {
  __shared__ float sums[1024];
  const int t = threadIdx.x;
  long long chunk = (static_cast<long long>(N) + 1023) / 1024;
  if (chunk > 256) chunk = 256;
  const long long lo = t * chunk;
  const long long hi = lo + chunk < N ? lo + chunk : N;
  float s = 0.0f;
  for (long long i = lo; i < hi; ++i) s += load(in, i);
  sums[t] = s;
  __syncthreads();
  for (int d = 1; d < 1024; d <<= 1) {
    const float v = t >= d ? sums[t - d] : 0.0f;
    __syncthreads();
    sums[t] += v;
    __syncthreads();
  }
  float run = t > 0 ? sums[t - 1] : 0.0f;
  for (long long i = lo; i < hi; ++i) {
    run += load(in, i);
    store(out, i, run);
  }
}

extern "C" void prefix_sum(float* output, const float* input, const int N) {
  scan_one_block<<<1, 1024>>>(input, output, N);
  cudaDeviceSynchronize();
}
extern "C" void prefix_sum_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, const int N) {
  scan_one_block<<<1, 1024>>>(input, output, N);
  cudaDeviceSynchronize();
}
