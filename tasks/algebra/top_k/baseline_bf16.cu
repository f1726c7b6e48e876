// Naive baseline (bf16 values compared through their exact FP32 widening): a full bitonic sort of 64-bit
// keys (descending-orderable value bits << 32 | index), padded to the next power of two with all-ones
// keys, one full-grid launch per compare-exchange step.
// Sorting the keys ascending orders by value descending and, for equal values, by index ascending (the
// tie rule); the first k keys give the indices, the values are read back from input.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "mskb_scratch.cuh"

__device__ __forceinline__ unsigned long long make_key(float v, long long i) {
  if (v == 0.0f) v = 0.0f;  // -0 and +0 are equal values: one key
  unsigned int u = __float_as_uint(v);
  u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);  // unsigned order == float order
  return (static_cast<unsigned long long>(~u) << 32) | static_cast<unsigned int>(i);  // ~u: descending
}

__global__ void init_keys(const __nv_bfloat16* input, unsigned long long* keys, long long n, long long p) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < p) keys[i] = i < n ? make_key(__bfloat162float(input[i]), i) : ~0ull;
}

__global__ void bitonic_step(unsigned long long* keys, long long p, long long j, long long k) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= p) return;
  const long long l = i ^ j;
  if (l <= i) return;
  const unsigned long long a = keys[i], b = keys[l];
  const bool ascending = (i & k) == 0;
  if (ascending ? a > b : a < b) {
    keys[i] = b;
    keys[l] = a;
  }
}

__global__ void write_top(const unsigned long long* keys, const __nv_bfloat16* input, __nv_bfloat16* values, int* indices, int k) {
  const long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= k) return;
  const unsigned int idx = static_cast<unsigned int>(keys[r] & 0xffffffffull);
  indices[r] = static_cast<int>(idx);
  values[r] = input[idx];
}

// Kept between calls (mskb_scratch.cuh): the timed call does not allocate or free.
static mskb_scratch::Buffer<unsigned long long> g_scratch;

extern "C" void top_k_bf16(__nv_bfloat16* top_k_values, int* top_k_indices, const __nv_bfloat16* input, const int N, const int k) {
  const long long n = N;
  long long p = 1;
  while (p < n) p <<= 1;
  unsigned long long* keys = g_scratch.get(static_cast<size_t>(p), "top_k_bf16");
  const int threads = 256;
  const unsigned pblocks = static_cast<unsigned>((p + threads - 1) / threads);
  init_keys<<<pblocks, threads>>>(input, keys, n, p);
  for (long long kk = 2; kk <= p; kk <<= 1)
    for (long long j = kk >> 1; j > 0; j >>= 1) bitonic_step<<<pblocks, threads>>>(keys, p, j, kk);
  write_top<<<static_cast<unsigned>((k + threads - 1) / threads), threads>>>(keys, input, top_k_values, top_k_indices, k);
  cudaDeviceSynchronize();
}
