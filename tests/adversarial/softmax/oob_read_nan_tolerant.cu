// mskb-expect: sanitizer_error
// mskb-precision: fp32
// mskb-class: 7 guard-restoring-memory-error
// mskb-gate: memcheck
// Trick: a vectorised (float4) row loop that rounds the row's start down and its end up to 16-byte
// boundaries, so it reads up to three floats before input[0] and after input[N*C - 1] (the guard
// zones). The extra lanes are masked out of the result with index checks, so the harness's NaN
// guard (which turns out-of-bounds reads into NaN outputs) never shows in the output. Why reject: it
// reads outside the buffer (on a real allocation boundary: a fault or another tensor's data); only
// compute-sanitizer memcheck sees it: sanitizer_error under --memcheck.
#include <cuda_runtime.h>

#include <cmath>

#include <cstdint>

__device__ float4 load_aligned4(const float* p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p) & ~uintptr_t{15};
  return *reinterpret_cast<const float4*>(a);
}

__global__ void softmax_rows(float* out, const float* in, int C) {
  __shared__ float red[256];
  const float* x = in + static_cast<long long>(blockIdx.x) * C;
  float* y = out + static_cast<long long>(blockIdx.x) * C;
  // Element j of the row lives at lane (x + j) % 4 of the aligned group containing it.
  const int lead = static_cast<int>((reinterpret_cast<uintptr_t>(x) >> 2) & 3);
  const int groups = (lead + C + 3) / 4;
  float m = -INFINITY;
  for (int g = threadIdx.x; g < groups; g += 256) {
    const float4 v = load_aligned4(x - lead + 4 * g);
    const float e[4] = {v.x, v.y, v.z, v.w};
    for (int l = 0; l < 4; ++l) {
      const int j = 4 * g + l - lead;
      if (j >= 0 && j < C) m = fmaxf(m, e[l]);
    }
  }
  red[threadIdx.x] = m;
  __syncthreads();
  for (unsigned o = 128; o > 0; o >>= 1) {
    if (threadIdx.x < o) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + o]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float s = 0.0f;
  for (int j = threadIdx.x; j < C; j += 256) s += expf(x[j] - m);
  red[threadIdx.x] = s;
  __syncthreads();
  for (unsigned o = 128; o > 0; o >>= 1) {
    if (threadIdx.x < o) red[threadIdx.x] += red[threadIdx.x + o];
    __syncthreads();
  }
  s = red[0];
  for (int j = threadIdx.x; j < C; j += 256) y[j] = expf(x[j] - m) / s;
}

extern "C" void softmax(float* out, const float* input, int N, int C) {
  if (N > 0) softmax_rows<<<N, 256>>>(out, input, C);
  cudaDeviceSynchronize();
}
