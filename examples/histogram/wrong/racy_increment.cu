// mskb-expect: wrong_result
// mskb-precision: fp32, bf16
// A data race: counts[b] += 1 without an atomic. Threads that hit the same bin at once read the
// same old count and write the same new one, so increments are lost: with far more values than
// bins (every paper shape) the counts come out short. Correct only when no two values collide.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ inline float load(const float* p, long long i) { return p[i]; }
__device__ inline float load(const __nv_bfloat16* p, long long i) { return __bfloat162float(p[i]); }

template <class T>
__global__ void racy_kernel(const T* values, int* counts, long long n, int bins) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int b = min(static_cast<int>(load(values, i) * static_cast<float>(bins)), bins - 1);
  volatile int* c = counts;
  c[b] = c[b] + 1;  // read-modify-write that other threads interleave with
}

template <class T>
void launch(const T* values, int* counts, int N, int B) {
  const int threads = 256;
  racy_kernel<<<static_cast<unsigned>((static_cast<long long>(N) + threads - 1) / threads), threads>>>(values, counts, N, B);
  cudaDeviceSynchronize();
}

extern "C" void histogram(const float* values, int* counts, int N, int B) { launch(values, counts, N, B); }
extern "C" void histogram_bf16(const __nv_bfloat16* values, int* counts, int N, int B) { launch(values, counts, N, B); }
