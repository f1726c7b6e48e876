// Naive baseline: one thread per output element; bf16 loads compared in FP32 (exact), the winning value
// stored back as bf16 (exact). Loops over the k x k window, skipping cells outside the input (padding
// is ignored). 64-bit indices; any kernel_size, stride, padding.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <math.h>

__global__ void max_pool_bf16_kernel(const __nv_bfloat16* in, __nv_bfloat16* out, long long total, int H, int W, int oH, int oW,
                                     int k, int s, int p) {
  const long long o = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (o >= total) return;
  const int ow = static_cast<int>(o % oW);
  const long long t = o / oW;
  const int oh = static_cast<int>(t % oH);
  const long long plane = t / oH;
  const __nv_bfloat16* src = in + plane * H * W;
  float m = -INFINITY;
  for (int kh = 0; kh < k; ++kh) {
    const int ih = oh * s - p + kh;
    if (ih < 0 || ih >= H) continue;
    for (int kw = 0; kw < k; ++kw) {
      const int iw = ow * s - p + kw;
      if (iw < 0 || iw >= W) continue;
      m = fmaxf(m, __bfloat162float(src[static_cast<long long>(ih) * W + iw]));
    }
  }
  out[o] = __float2bfloat16(m);
}

extern "C" void max_pooling_2d_bf16(const __nv_bfloat16* input, __nv_bfloat16* output, int N, int C, int H, int W, int kernel_size,
                                    int stride, int padding) {
  const int oH = (H + 2 * padding - kernel_size) / stride + 1;
  const int oW = (W + 2 * padding - kernel_size) / stride + 1;
  const long long total = static_cast<long long>(N) * C * oH * oW;
  if (total <= 0) return;
  const int threads = 256;
  max_pool_bf16_kernel<<<static_cast<unsigned>((total + threads - 1) / threads), threads>>>(input, output, total, H, W, oH, oW,
                                                                                           kernel_size, stride, padding);
  cudaDeviceSynchronize();
}
