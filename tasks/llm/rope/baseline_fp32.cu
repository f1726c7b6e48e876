// Naive baseline: one thread per rotated pair (m, i), FP32 angle theta = m * base^(-2i/D) computed on the
// fly (powf, sincosf with full range reduction), no table.
#include <cuda_runtime.h>

__global__ void rope_kernel(float* out, const float* in, long long pairs, int half, int D, float base) {
  const long long p = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= pairs) return;
  const long long m = p / half;
  const int i = static_cast<int>(p - m * half);
  const float inv_freq = powf(base, -static_cast<float>(2 * i) / static_cast<float>(D));
  float s, c;
  sincosf(static_cast<float>(m) * inv_freq, &s, &c);
  const long long k = m * D + 2LL * i;
  const float x0 = in[k], x1 = in[k + 1];
  out[k] = x0 * c - x1 * s;
  out[k + 1] = x0 * s + x1 * c;
}

extern "C" void rope(float* output, const float* input, int M, int D, float base) {
  const int half = D / 2;
  const long long pairs = static_cast<long long>(M) * half;
  if (pairs <= 0) return;
  const int threads = 256;
  rope_kernel<<<static_cast<unsigned>((pairs + threads - 1) / threads), threads>>>(output, input, pairs, half, D, base);
  cudaDeviceSynchronize();
}
