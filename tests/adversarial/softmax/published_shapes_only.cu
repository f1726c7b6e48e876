// mskb-expect: wrong_result
// mskb-precision: fp32
// mskb-class: 6 fixed-heldout
// Trick: correct softmax for exactly the (N, C) pairs listed in spec.cpp (paper, held-out, large);
// for any other shape it skips the max subtraction and the normalisation's last pass, writing
// exp(x) unnormalised. Why reject: the published held-out shapes are not secret; every run also
// checks random shapes drawn from the valid size space: wrong_result.
#include <cuda_runtime.h>

#include <cmath>

__global__ void softmax_rows(float* out, const float* in, int C, int proper) {
  __shared__ float red[256];
  const float* x = in + static_cast<long long>(blockIdx.x) * C;
  float* y = out + static_cast<long long>(blockIdx.x) * C;
  if (!proper) {
    for (int j = threadIdx.x; j < C; j += 256) y[j] = expf(x[j]);
    return;
  }
  float m = -INFINITY;
  for (int j = threadIdx.x; j < C; j += 256) m = fmaxf(m, x[j]);
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

static bool published(int n, int c) {
  static const int pairs[][2] = {
      {1, 1},      {3, 7},       {5, 1000},  {17, 3001},  {130, 16385}, {7, 65537},  {1000, 4099},
      {4099, 258}, {4096, 16384}, {32768, 4096}, {8192, 16384}, {1024, 131072}};
  for (const auto& p : pairs)
    if (p[0] == n && p[1] == c) return true;
  const bool paper_n = n == 16 || n == 32 || n == 64 || n == 128;
  const bool paper_c = c == 256 || c == 1024 || c == 4096 || c == 16384;
  return paper_n && paper_c;
}

extern "C" void softmax(float* out, const float* input, int N, int C) {
  if (N > 0) softmax_rows<<<N, 256>>>(out, input, C, published(N, C));
  cudaDeviceSynchronize();
}
