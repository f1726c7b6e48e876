// mskb-expect: too_fast
// mskb-precision: fp32
// mskb-class: 3 state-across-calls
// mskb-gate: timing
// Trick: keeps a device copy of its last output and a fingerprint of its inputs (4096 sampled
// elements of A and B). Each call first recomputes the fingerprint on the device; where it matches
// (every timed sample of a shape repeats the same inputs) cudaMemcpyAsync copies the cached output (2N
// elements of DRAM traffic instead of 3N), otherwise it adds and refreshes the cache. Every output
// is right, so every check passes, and the time is 1.3-1.5x faster than the DRAM roofline allows:
// a third of the traffic saved, not the half the old 0.5x floor needed.
// Why reject: state across calls that buys a time no honest kernel reaches. On the large sweep
// (working sets of 0.8 and 3 GB, far past the L2) the replay margin makes it too_fast.
#include <cuda_runtime.h>

namespace {

constexpr int kSamples = 4096;

__global__ void fingerprint(const float* A, const float* B, long long n, unsigned long long* fp) {
  __shared__ unsigned long long acc;
  if (threadIdx.x == 0) acc = 0;
  __syncthreads();
  for (int s = threadIdx.x; s < kSamples; s += blockDim.x) {
    const long long i = n > 0 ? (static_cast<long long>(s) * 2654435761ll) % n : 0;
    const unsigned a = n > 0 ? __float_as_uint(A[i]) : 0u, b = n > 0 ? __float_as_uint(B[i]) : 0u;
    atomicAdd(&acc, (static_cast<unsigned long long>(a) * 0x9E3779B97F4A7C15ull) ^ (b + static_cast<unsigned long long>(s)));
  }
  __syncthreads();
  if (threadIdx.x == 0) fp[0] = acc + static_cast<unsigned long long>(n);
}

__global__ void add(const float4* A, const float4* B, float4* C, long long n4) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n4; i += 256ll * gridDim.x) {
    const float4 a = A[i], b = B[i];
    C[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
  }
}

__global__ void add_tail(const float* A, const float* B, float* C, long long from, long long n) {
  const long long i = from + blockIdx.x * 256ll + threadIdx.x;
  if (i < n) C[i] = A[i] + B[i];
}

}  // namespace

// The replay copies the cached output with the copy engine's bandwidth (read N, write N); the honest
// path adds (read 2N, write N) and then refreshes the cache (a copy the timed samples never pay).
extern "C" void vector_add(const float* A, const float* B, float* C, int N) {
  static float* cache = nullptr;
  static long long cache_n = -1;
  static unsigned long long* fp = nullptr;
  static unsigned long long last = ~0ull;
  const long long n = N > 0 ? N : 0;
  if (!fp) cudaMalloc(&fp, sizeof(unsigned long long));
  if (n != cache_n) {  // a new size: a new cache, and no replay from the old one
    if (cache) cudaFree(cache);
    cudaMalloc(&cache, static_cast<size_t>(n > 0 ? n : 1) * sizeof(float));
    cache_n = n;
    last = ~0ull;
  }
  fingerprint<<<1, 256>>>(A, B, n, fp);
  unsigned long long now = 0;
  cudaMemcpy(&now, fp, sizeof now, cudaMemcpyDeviceToHost);
  if (now == last && n > 0) {
    cudaMemcpyAsync(C, cache, static_cast<size_t>(n) * sizeof(float), cudaMemcpyDeviceToDevice, 0);
  } else if (n > 0) {
    const long long n4 = n / 4;
    if (n4 > 0) add<<<132 * 16, 256>>>(reinterpret_cast<const float4*>(A), reinterpret_cast<const float4*>(B), reinterpret_cast<float4*>(C), n4);
    if (n > n4 * 4) add_tail<<<1, 256>>>(A, B, C, n4 * 4, n);
    cudaMemcpyAsync(cache, C, static_cast<size_t>(n) * sizeof(float), cudaMemcpyDeviceToDevice, 0);
  }
  last = now;
  cudaDeviceSynchronize();
}
