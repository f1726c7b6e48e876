// Naive baseline: one thread per output element, a plain loop over the kernel taps (valid
// cross-correlation, 64-bit indices).
#include <cuda_runtime.h>

__global__ void conv_1d_kernel(const float* input, const float* kernel, float* output, long long out_len, int k) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= out_len) return;
  float acc = 0.0f;
  for (int t = 0; t < k; ++t) acc += input[i + t] * kernel[t];
  output[i] = acc;
}

extern "C" void conv_1d(const float* input, const float* kernel, float* output, int input_size, int kernel_size) {
  const long long out_len = static_cast<long long>(input_size) - kernel_size + 1;
  if (out_len <= 0 || kernel_size <= 0) return;
  const int threads = 256;
  conv_1d_kernel<<<static_cast<unsigned>((out_len + threads - 1) / threads), threads>>>(input, kernel, output, out_len,
                                                                                         kernel_size);
  cudaDeviceSynchronize();
}
