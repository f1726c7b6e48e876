// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: a bitonic network run directly on data, assuming N is a power of two (every paper size is).
// Comparators whose partner index is >= N are skipped, which keeps it memory safe but leaves non-power-
// of-two inputs unsorted.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }

template <class T>
__global__ void bitonic_step_unpadded(T* data, long long n, long long j, long long k) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const long long l = i ^ j;
  if (l <= i || l >= n) return;
  const T a = data[i], b = data[l];
  const bool ascending = (i & k) == 0;
  if (ascending ? to_f(a) > to_f(b) : to_f(a) < to_f(b)) {
    data[i] = b;
    data[l] = a;
  }
}

template <class T>
void launch(T* data, int N) {
  const long long n = N;
  long long p = 1;
  while (p < n) p <<= 1;
  const int threads = 256;
  const unsigned blocks = static_cast<unsigned>((n + threads - 1) / threads);
  for (long long k = 2; k <= p; k <<= 1)
    for (long long j = k >> 1; j > 0; j >>= 1) bitonic_step_unpadded<<<blocks, threads>>>(data, n, j, k);
  cudaDeviceSynchronize();
}

extern "C" void sorting(float* data, int N) { launch(data, N); }
extern "C" void sorting_bf16(__nv_bfloat16* data, int N) { launch(data, N); }
