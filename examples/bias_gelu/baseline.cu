// Baseline of bias_gelu: one thread per element, FP32 arithmetic (erff), one rounding to the
// output type. Exports both entry points (fp32 and bf16).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ inline float load(const float* p, long long i) { return p[i]; }
__device__ inline float load(const __nv_bfloat16* p, long long i) { return __bfloat162float(p[i]); }
__device__ inline void store(float* p, long long i, float v) { p[i] = v; }
__device__ inline void store(__nv_bfloat16* p, long long i, float v) { p[i] = __float2bfloat16(v); }

template <class T>
__global__ void bias_gelu_kernel(const T* x, const T* bias, T* y, long long total, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const float v = load(x, i) + load(bias, i % N);
  store(y, i, 0.5f * v * (1.0f + erff(v * 0.70710678118654752f)));
}

template <class T>
void launch(const T* x, const T* bias, T* y, int M, int N) {
  const long long total = static_cast<long long>(M) * N;
  const int threads = 256;
  const long long blocks = (total + threads - 1) / threads;
  bias_gelu_kernel<<<static_cast<unsigned>(blocks), threads>>>(x, bias, y, total, N);
  cudaDeviceSynchronize();
}

extern "C" void bias_gelu(const float* x, const float* bias, float* y, int M, int N) { launch(x, bias, y, M, N); }

extern "C" void bias_gelu_bf16(const __nv_bfloat16* x, const __nv_bfloat16* bias, __nv_bfloat16* y, int M, int N) {
  launch(x, bias, y, M, N);
}
