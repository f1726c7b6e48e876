// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: computes the EXCLUSIVE scan (output[i] = input[0] + ... + input[i-1], output[0] = 0), the
// other common reading of "prefix sum". Multi-pass and correct in structure for every N, so it fails only
// because of the inclusive/exclusive mix-up.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float load(const float* p, long long i) { return p[i]; }
__device__ __forceinline__ float load(const __nv_bfloat16* p, long long i) { return __bfloat162float(p[i]); }
__device__ __forceinline__ void store(float* p, long long i, float v) { p[i] = v; }
__device__ __forceinline__ void store(__nv_bfloat16* p, long long i, float v) { p[i] = __float2bfloat16(v); }

// Shift right by one (the exclusive seed), into FP32 scratch.
template <class T>
__global__ void shift_in(const T* in, float* dst, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = i > 0 ? load(in, i - 1) : 0.0f;
}

__global__ void scan_pass(const float* src, float* dst, long long n, long long d) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = src[i];
  if (i >= d) v += src[i - d];
  dst[i] = v;
}

template <class T>
__global__ void store_out(const float* src, T* out, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) store(out, i, src[i]);
}

template <class T>
void launch(const T* input, T* output, int N) {
  const long long n = N;
  const int threads = 256;
  const unsigned blocks = static_cast<unsigned>((n + threads - 1) / threads);
  float* scratch = nullptr;
  cudaMalloc(&scratch, 2 * sizeof(float) * static_cast<size_t>(n));
  float* f[2] = {scratch, scratch + n};
  shift_in<<<blocks, threads>>>(input, f[0], n);
  int cur = 0;
  for (long long d = 1; d < n; d <<= 1, cur ^= 1) scan_pass<<<blocks, threads>>>(f[cur], f[cur ^ 1], n, d);
  store_out<<<blocks, threads>>>(f[cur], output, n);
  cudaDeviceSynchronize();
  cudaFree(scratch);
}

extern "C" void prefix_sum(float* output, const float* input, const int N) { launch(input, output, N); }
extern "C" void prefix_sum_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, const int N) { launch(input, output, N); }
