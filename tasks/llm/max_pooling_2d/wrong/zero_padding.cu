// mskb-expect: wrong_result
// mskb-precision: fp32
// Shortcut: pads with zeros (the running max starts at 0 whenever the window overlaps the padding), as a
// convolution would. Exact for padding = 0; with padding = 1 every border window whose real cells are
// all negative returns 0 instead of its largest (negative) value.
#include <cuda_runtime.h>

#include <math.h>

__global__ void max_pool_zero_pad(const float* in, float* out, long long total, int H, int W, int oH, int oW, int k, int s, int p) {
  const long long o = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (o >= total) return;
  const int ow = static_cast<int>(o % oW);
  const long long t = o / oW;
  const int oh = static_cast<int>(t % oH);
  const long long plane = t / oH;
  float m = -INFINITY;
  for (int kh = 0; kh < k; ++kh)
    for (int kw = 0; kw < k; ++kw) {
      const int ih = oh * s - p + kh, iw = ow * s - p + kw;
      const bool inside = ih >= 0 && ih < H && iw >= 0 && iw < W;
      m = fmaxf(m, inside ? in[(plane * H + ih) * W + iw] : 0.0f);
    }
  out[o] = m;
}

extern "C" void max_pooling_2d(const float* input, float* output, int N, int C, int H, int W, int kernel_size, int stride,
                               int padding) {
  const int oH = (H + 2 * padding - kernel_size) / stride + 1, oW = (W + 2 * padding - kernel_size) / stride + 1;
  const long long total = static_cast<long long>(N) * C * oH * oW;
  if (total <= 0) return;
  max_pool_zero_pad<<<static_cast<unsigned>((total + 255) / 256), 256>>>(input, output, total, H, W, oH, oW, kernel_size, stride,
                                                                         padding);
  cudaDeviceSynchronize();
}
