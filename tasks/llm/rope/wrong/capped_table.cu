// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: the inverse frequencies base^(-2i/D) live in a __constant__ table sized for the paper's
// largest head, D <= 16384 (8192 pairs); the host fills min(D/2, 8192) entries and the kernel clamps the
// pair index into the table. Exact for every paper shape (D <= 16384); for held-out D > 16384 the pairs
// i >= 8192 rotate with the frequency of pair 8191 instead of their own.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <vector>

namespace {

constexpr int kTablePairs = 8192;
__constant__ float inv_freq_table[kTablePairs];

__device__ float to_f(float v) { return v; }
__device__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ void store(float* p, float v) { *p = v; }
__device__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

template <class T>
__global__ void rope_table(T* out, const T* in, long long pairs, int half, int D) {
  const long long p = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= pairs) return;
  const long long m = p / half;
  const int i = static_cast<int>(p - m * half);
  float s, c;
  sincosf(static_cast<float>(m) * inv_freq_table[i < kTablePairs ? i : kTablePairs - 1], &s, &c);
  const long long k = m * D + 2LL * i;
  const float x0 = to_f(in[k]), x1 = to_f(in[k + 1]);
  store(&out[k], x0 * c - x1 * s);
  store(&out[k + 1], x0 * s + x1 * c);
}

template <class T>
void launch(T* output, const T* input, int M, int D, float base) {
  const int half = D / 2;
  const int filled = half < kTablePairs ? half : kTablePairs;
  std::vector<float> table(static_cast<size_t>(filled));
  for (int i = 0; i < filled; ++i) table[static_cast<size_t>(i)] = std::pow(base, -2.0f * static_cast<float>(i) / static_cast<float>(D));
  cudaMemcpyToSymbol(inv_freq_table, table.data(), sizeof(float) * static_cast<size_t>(filled));
  const long long pairs = static_cast<long long>(M) * half;
  if (pairs <= 0) return;
  rope_table<T><<<static_cast<unsigned>((pairs + 255) / 256), 256>>>(output, input, pairs, half, D);
  cudaDeviceSynchronize();
}

}  // namespace

extern "C" void rope(float* output, const float* input, int M, int D, float base) { launch(output, input, M, D, base); }

extern "C" void rope_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, int M, int D, float base) {
  launch(output, input, M, D, base);
}
