// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: the window loops are unrolled for the paper's pooling sizes only (k in {2, 3, 4}); any other
// kernel_size falls into the k = 4 instantiation. Exact for every paper shape; for held-out windows
// such as 5, 6 or 7 the max misses the window's last rows and columns.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <math.h>

namespace {

__device__ float to_f(float v) { return v; }
__device__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ void store(float* p, float v) { *p = v; }
__device__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

template <int K, class T>
__global__ void max_pool_fixed(const T* in, T* out, long long total, int H, int W, int oH, int oW, int s, int p) {
  const long long o = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (o >= total) return;
  const int ow = static_cast<int>(o % oW);
  const long long t = o / oW;
  const int oh = static_cast<int>(t % oH);
  const long long plane = t / oH;
  float m = -INFINITY;
#pragma unroll
  for (int kh = 0; kh < K; ++kh)
#pragma unroll
    for (int kw = 0; kw < K; ++kw) {
      const int ih = oh * s - p + kh, iw = ow * s - p + kw;
      if (ih >= 0 && ih < H && iw >= 0 && iw < W) m = fmaxf(m, to_f(in[(plane * H + ih) * W + iw]));
    }
  store(&out[o], m);
}

template <class T>
void launch(const T* in, T* out, int N, int C, int H, int W, int k, int s, int p) {
  const int oH = (H + 2 * p - k) / s + 1, oW = (W + 2 * p - k) / s + 1;
  const long long total = static_cast<long long>(N) * C * oH * oW;
  if (total <= 0) return;
  const unsigned blocks = static_cast<unsigned>((total + 255) / 256);
  if (k == 2) max_pool_fixed<2, T><<<blocks, 256>>>(in, out, total, H, W, oH, oW, s, p);
  else if (k == 3) max_pool_fixed<3, T><<<blocks, 256>>>(in, out, total, H, W, oH, oW, s, p);
  else max_pool_fixed<4, T><<<blocks, 256>>>(in, out, total, H, W, oH, oW, s, p);
  cudaDeviceSynchronize();
}

}  // namespace

extern "C" void max_pooling_2d(const float* input, float* output, int N, int C, int H, int W, int kernel_size, int stride,
                               int padding) {
  launch(input, output, N, C, H, W, kernel_size, stride, padding);
}

extern "C" void max_pooling_2d_bf16(const __nv_bfloat16* input, __nv_bfloat16* output, int N, int C, int H, int W, int kernel_size,
                                    int stride, int padding) {
  launch(input, output, N, C, H, W, kernel_size, stride, padding);
}
