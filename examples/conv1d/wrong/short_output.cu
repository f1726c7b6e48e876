// mskb-expect: unwritten_output
// mskb-precision: fp32
// Computes N - K outputs instead of N - K + 1 (the "same length minus the kernel" slip): the last
// output keeps the harness's poison pattern, which is reported as never written.
#include <cuda_runtime.h>

__global__ void short_output_kernel(const float* x, const float* w, float* y, long long outputs, int K) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= outputs) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc = fmaf(x[i + k], w[k], acc);
  y[i] = acc;
}

extern "C" void conv1d(const float* x, const float* w, float* y, int N, int K) {
  const long long outputs = static_cast<long long>(N) - K;  // one short
  if (outputs <= 0) return;
  short_output_kernel<<<static_cast<unsigned>((outputs + 255) / 256), 256>>>(x, w, y, outputs, K);
  cudaDeviceSynchronize();
}
