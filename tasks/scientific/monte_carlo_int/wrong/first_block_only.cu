// mskb-expect: wrong_result
// mskb-precision: fp32
// Shortcut: a single block of 256 threads reduces "the" samples without a grid-stride loop, so only
// y[0..255] are summed (then scaled by (b - a) / N with the true N). Exact whenever N <= 256 (held-out
// N = 1 and N = 3), wrong for every paper size.
#include <cuda_runtime.h>

__global__ void first_block_kernel(const float* y, float* result, float scale, int N) {
  __shared__ float s[256];
  s[threadIdx.x] = threadIdx.x < N ? y[threadIdx.x] : 0.0f;
  __syncthreads();
  for (int stride = 128; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) result[0] += scale * s[0];
}

extern "C" void monte_carlo_int(const float* y_samples, float* result, float a, float b, int N) {
  first_block_kernel<<<1, 256>>>(y_samples, result, (b - a) / static_cast<float>(N), N);
  cudaDeviceSynchronize();
}
