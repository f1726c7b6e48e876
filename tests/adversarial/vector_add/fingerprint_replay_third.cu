// mskb-expect: too_fast
// mskb-precision: fp32
// mskb-class: 3 state-across-calls
// mskb-gate: timing
// Trick: keeps a device copy of its last output and a fingerprint of its inputs (4096 sampled
// elements of A and B). Each call first recomputes the fingerprint on the device; where it matches
// (every timed sample of a shape repeats the same inputs) one kernel copies the cached output (2N
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
  if (threadIdx.x == 0) {
    fp[1] = (fp[0] == acc + static_cast<unsigned long long>(n)) ? 1ull : 0ull;  // 1: the same inputs as last time
    fp[0] = acc + static_cast<unsigned long long>(n);
  }
}

__global__ void add_or_replay(const float* A, const float* B, float* C, float* cache, long long n, const unsigned long long* fp) {
  const bool replay = fp[1] == 1ull;
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) {
    if (replay) {
      C[i] = cache[i];
    } else {
      const float c = A[i] + B[i];
      C[i] = c;
      cache[i] = c;
    }
  }
}

}  // namespace

extern "C" void vector_add(const float* A, const float* B, float* C, int N) {
  static float* cache = nullptr;
  static long long cache_n = -1;
  static unsigned long long* fp = nullptr;
  if (!fp) {
    cudaMalloc(&fp, 2 * sizeof(unsigned long long));
    cudaMemset(fp, 0, 2 * sizeof(unsigned long long));
  }
  const long long n = N > 0 ? N : 0;
  if (n != cache_n) {  // a new size: a new cache, and no replay from the old one
    if (cache) cudaFree(cache);
    cudaMalloc(&cache, static_cast<size_t>(n > 0 ? n : 1) * sizeof(float));
    cudaMemset(fp, 0, 2 * sizeof(unsigned long long));
    cache_n = n;
  }
  fingerprint<<<1, 256>>>(A, B, n, fp);
  if (n > 0) add_or_replay<<<132 * 8, 256>>>(A, B, C, cache, n, fp);
  cudaDeviceSynchronize();
}
