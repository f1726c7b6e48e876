// The original conv1d kernel: the reference of this task (task.toml: reference_kernel). One thread
// per output, one FP32 fmaf chain over the K taps in order. It is the task's entry point, with the
// task's signature; the harness builds it with the kernel recipe and runs it in a process of its
// own for every instance it checks.
#include <cuda_runtime.h>

__global__ void conv1d_orig_kernel(const float* x, const float* w, float* y, long long outputs, int K) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= outputs) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc = fmaf(x[i + k], w[k], acc);
  y[i] = acc;
}

extern "C" void conv1d(const float* x, const float* w, float* y, int N, int K) {
  const long long outputs = static_cast<long long>(N) - K + 1;
  const int threads = 256;
  conv1d_orig_kernel<<<static_cast<unsigned>((outputs + threads - 1) / threads), threads>>>(x, w, y, outputs, K);
  cudaDeviceSynchronize();
}
