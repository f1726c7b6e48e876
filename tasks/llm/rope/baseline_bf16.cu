// Naive baseline: one thread per rotated pair (m, i); bf16 loads, FP32 angle theta = m * base^(-2i/D)
// computed on the fly (powf, sincosf with full range reduction), FP32 rotation, one bf16 rounding per
// output. No table.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void rope_bf16_kernel(__nv_bfloat16* out, const __nv_bfloat16* in, long long pairs, int half, int D, float base) {
  const long long p = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= pairs) return;
  const long long m = p / half;
  const int i = static_cast<int>(p - m * half);
  const float inv_freq = powf(base, -static_cast<float>(2 * i) / static_cast<float>(D));
  float s, c;
  sincosf(static_cast<float>(m) * inv_freq, &s, &c);
  const long long k = m * D + 2LL * i;
  const float x0 = __bfloat162float(in[k]), x1 = __bfloat162float(in[k + 1]);
  out[k] = __float2bfloat16(x0 * c - x1 * s);
  out[k + 1] = __float2bfloat16(x0 * s + x1 * c);
}

extern "C" void rope_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, int M, int D, float base) {
  const int half = D / 2;
  const long long pairs = static_cast<long long>(M) * half;
  if (pairs <= 0) return;
  const int threads = 256;
  rope_bf16_kernel<<<static_cast<unsigned>((pairs + threads - 1) / threads), threads>>>(output, input, pairs, half, D, base);
  cudaDeviceSynchronize();
}
