// mskb-expect: wrong_result
// mskb-precision: fp32
// An off-by-one in the tap loop (k < K - 1): the last tap x[i + K - 1] * w[K - 1] is never added.
// Every output is off by a product of two values in [-1, 1), far beyond the tolerance.
#include <cuda_runtime.h>

__global__ void drops_last_tap_kernel(const float* x, const float* w, float* y, long long outputs, int K) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= outputs) return;
  float acc = 0.0f;
  for (int k = 0; k < K - 1; ++k) acc = fmaf(x[i + k], w[k], acc);
  y[i] = acc;
}

extern "C" void conv1d(const float* x, const float* w, float* y, int N, int K) {
  const long long outputs = static_cast<long long>(N) - K + 1;
  drops_last_tap_kernel<<<static_cast<unsigned>((outputs + 255) / 256), 256>>>(x, w, y, outputs, K);
  cudaDeviceSynchronize();
}
