// mskb-expect: out_of_bounds
// mskb-precision: fp32, bf16
// Rounds v * B to the nearest bin instead of truncating it, and drops the clamp: every value in
// [(B - 0.5) / B, 1) lands in bin B, one past the end of counts. The atomicAdd there changes the
// guard zone after the buffer, which the harness checks before the counts: out_of_bounds.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ inline float load(const float* p, long long i) { return p[i]; }
__device__ inline float load(const __nv_bfloat16* p, long long i) { return __bfloat162float(p[i]); }

template <class T>
__global__ void rounded_kernel(const T* values, int* counts, long long n, int bins) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int b = __float2int_rn(load(values, i) * static_cast<float>(bins));  // 0 .. bins: one too many
  atomicAdd(&counts[b], 1);
}

template <class T>
void launch(const T* values, int* counts, int N, int B) {
  const int threads = 256;
  rounded_kernel<<<static_cast<unsigned>((static_cast<long long>(N) + threads - 1) / threads), threads>>>(values, counts, N, B);
  cudaDeviceSynchronize();
}

extern "C" void histogram(const float* values, int* counts, int N, int B) { launch(values, counts, N, B); }
extern "C" void histogram_bf16(const __nv_bfloat16* values, int* counts, int N, int B) { launch(values, counts, N, B); }
