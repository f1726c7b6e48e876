// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: "exponentiation by squaring" without the multiply-by-A steps: squares A floor(log2 P) times,
// i.e. computes A^(2^floor(log2 P)). Right when P is a power of two (P = 2, 8, 16 in the paper sweep),
// wrong for P = 5, 11 and most held-out P. FP32 intermediates throughout.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ void store(float* p, float v) { *p = v; }
__device__ __forceinline__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

template <class T>
__global__ void widen(const T* in, float* out, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = to_f(in[i]);
}

template <class T>
__global__ void narrow(const float* in, T* out, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) store(out + i, in[i]);
}

__global__ void square(const float* X, float* Z, int n) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n || col >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc += X[static_cast<long long>(row) * n + k] * X[static_cast<long long>(k) * n + col];
  Z[static_cast<long long>(row) * n + col] = acc;
}

template <class T>
void launch(const T* A, T* B, int N, int P) {
  const long long nn = static_cast<long long>(N) * N;
  float* buf = nullptr;
  cudaMalloc(&buf, 2 * sizeof(float) * static_cast<size_t>(nn));
  float* f[2] = {buf, buf + nn};
  const unsigned blocks1d = static_cast<unsigned>((nn + 255) / 256);
  widen<<<blocks1d, 256>>>(A, f[0], nn);
  int cur = 0;
  for (int e = P; e > 1; e >>= 1, cur ^= 1) square<<<dim3((N + 15) / 16, (N + 15) / 16), dim3(16, 16)>>>(f[cur], f[cur ^ 1], N);
  narrow<<<blocks1d, 256>>>(f[cur], B, nn);
  cudaDeviceSynchronize();
  cudaFree(buf);
}

extern "C" void matrix_power(const float* A, float* B, int N, int P) { launch(A, B, N, P); }
extern "C" void matrix_power_bf16(const __nv_bfloat16* A, __nv_bfloat16* B, int N, int P) { launch(A, B, N, P); }
