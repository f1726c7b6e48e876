// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: breaks ties arbitrarily - here, consistently towards the HIGHER index (the order a max-heap or
// an atomicMax on packed (value, index) keys tends to give). Values are right; with distinct inputs it
// would pass, but the generated inputs have many equal values, so the index list is wrong.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }

__device__ __forceinline__ unsigned long long make_key(float v, long long i) {
  if (v == 0.0f) v = 0.0f;
  unsigned int u = __float_as_uint(v);
  u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
  return (static_cast<unsigned long long>(~u) << 32) | static_cast<unsigned int>(~static_cast<unsigned int>(i));
}

template <class T>
__global__ void init_keys(const T* input, unsigned long long* keys, long long n, long long p) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < p) keys[i] = i < n ? make_key(to_f(input[i]), i) : ~0ull;
}

__global__ void bitonic_step(unsigned long long* keys, long long p, long long j, long long k) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= p) return;
  const long long l = i ^ j;
  if (l <= i) return;
  const unsigned long long a = keys[i], b = keys[l];
  if ((i & k) == 0 ? a > b : a < b) {
    keys[i] = b;
    keys[l] = a;
  }
}

template <class T>
__global__ void write_top(const unsigned long long* keys, const T* input, T* values, int* indices, int k) {
  const long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= k) return;
  const unsigned int idx = ~static_cast<unsigned int>(keys[r] & 0xffffffffull);
  indices[r] = static_cast<int>(idx);
  values[r] = input[idx];
}

template <class T>
void launch(T* values, int* indices, const T* input, int N, int k) {
  long long p = 1;
  while (p < N) p <<= 1;
  unsigned long long* keys = nullptr;
  cudaMalloc(&keys, sizeof(unsigned long long) * static_cast<size_t>(p));
  const int threads = 256;
  const unsigned pblocks = static_cast<unsigned>((p + threads - 1) / threads);
  init_keys<<<pblocks, threads>>>(input, keys, N, p);
  for (long long kk = 2; kk <= p; kk <<= 1)
    for (long long j = kk >> 1; j > 0; j >>= 1) bitonic_step<<<pblocks, threads>>>(keys, p, j, kk);
  write_top<<<static_cast<unsigned>((k + threads - 1) / threads), threads>>>(keys, input, values, indices, k);
  cudaDeviceSynchronize();
  cudaFree(keys);
}

extern "C" void top_k(float* top_k_values, int* top_k_indices, const float* input, const int N, const int k) {
  launch(top_k_values, top_k_indices, input, N, k);
}
extern "C" void top_k_bf16(__nv_bfloat16* top_k_values, int* top_k_indices, const __nv_bfloat16* input, const int N, const int k) {
  launch(top_k_values, top_k_indices, input, N, k);
}
