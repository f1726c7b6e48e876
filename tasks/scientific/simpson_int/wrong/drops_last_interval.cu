// mskb-expect: wrong_result
// mskb-precision: fp32
// Shortcut: sums only the (N-1)/2 complete Simpson panels [2p, 2p+1, 2p+2] (the published MSKernelBench
// kernels do this). For odd N that is the whole rule and exact; for even N (every paper size) the last
// interval - and the sample y[N-1] - are silently dropped instead of integrated.
#include <cuda_runtime.h>

__global__ void panels_kernel(const float* y, float* result, float scale, int panels) {
  __shared__ float s[256];
  const long long p = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  s[threadIdx.x] = p < panels ? y[2 * p] + 4.0f * y[2 * p + 1] + y[2 * p + 2] : 0.0f;
  __syncthreads();
  for (int stride = 128; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(result, scale * s[0]);
}

extern "C" void simpson_int(const float* y_samples, float* result, float a, float b, int N) {
  const int panels = (N - 1) / 2;
  if (panels <= 0) return;
  const float h = (b - a) / static_cast<float>(N - 1);
  panels_kernel<<<(panels + 255) / 256, 256>>>(y_samples, result, h / 3.0f, panels);
  cudaDeviceSynchronize();
}
