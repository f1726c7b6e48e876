// Baseline of histogram: one thread per value (grid-stride), one global atomicAdd per value.
// Exports both entry points (fp32 and bf16).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ inline float load(const float* p, long long i) { return p[i]; }
__device__ inline float load(const __nv_bfloat16* p, long long i) { return __bfloat162float(p[i]); }

template <class T>
__global__ void histogram_kernel(const T* values, int* counts, long long n, int bins) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int b = min(static_cast<int>(load(values, i) * static_cast<float>(bins)), bins - 1);  // exact: bins is 2^k
    atomicAdd(&counts[b], 1);
  }
}

template <class T>
void launch(const T* values, int* counts, int N, int B) {
  const int threads = 256;
  const long long blocks = (static_cast<long long>(N) + threads - 1) / threads;
  histogram_kernel<<<static_cast<unsigned>(blocks < 65536 ? blocks : 65536), threads>>>(values, counts, N, B);
  cudaDeviceSynchronize();
}

extern "C" void histogram(const float* values, int* counts, int N, int B) { launch(values, counts, N, B); }

extern "C" void histogram_bf16(const __nv_bfloat16* values, int* counts, int N, int B) { launch(values, counts, N, B); }
