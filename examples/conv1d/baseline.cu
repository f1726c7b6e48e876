// Baseline of conv1d: a block computes 256 consecutive outputs; the taps go through shared memory
// in chunks of 256 with the input window they need (512 values), so every input is read from
// global memory about twice per chunk instead of K times. FP32 fmaf, taps in order.
#include <cuda_runtime.h>

constexpr int kOut = 256;   // outputs per block (= threads)
constexpr int kTaps = 256;  // taps per shared-memory chunk

__global__ void conv1d_tiled_kernel(const float* x, const float* w, float* y, long long N, long long outputs, int K) {
  __shared__ float sx[kOut + kTaps];
  __shared__ float sw[kTaps];
  const long long base = static_cast<long long>(blockIdx.x) * kOut;
  const int t = threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += kTaps) {
    const int taps = min(kTaps, K - k0);
    sw[t] = t < taps ? w[k0 + t] : 0.0f;
    for (int j = t; j < kOut + kTaps; j += kOut) {
      const long long at = base + k0 + j;
      sx[j] = at < N ? x[at] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < taps; ++k) acc = fmaf(sx[t + k], sw[k], acc);
    __syncthreads();
  }
  if (base + t < outputs) y[base + t] = acc;
}

extern "C" void conv1d(const float* x, const float* w, float* y, int N, int K) {
  const long long outputs = static_cast<long long>(N) - K + 1;
  conv1d_tiled_kernel<<<static_cast<unsigned>((outputs + kOut - 1) / kOut), kOut>>>(x, w, y, N, outputs, K);
  cudaDeviceSynchronize();
}
