// mskb-expect: wrong_result
// mskb-precision: fp32
// Shortcut: the filter lives in a __constant__ array sized for the paper's largest kernel (256 taps);
// the copy and the loop are clamped to 256, so for kernel_size > 256 (held-out 300, 513, 1999) the
// remaining taps are silently dropped. Exact for every kernel_size <= 256.
#include <cuda_runtime.h>

constexpr int kMaxTaps = 256;
__constant__ float c_taps[kMaxTaps];

__global__ void conv_1d_const_kernel(const float* input, float* output, long long out_len, int taps) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= out_len) return;
  float acc = 0.0f;
  for (int t = 0; t < taps; ++t) acc += input[i + t] * c_taps[t];
  output[i] = acc;
}

extern "C" void conv_1d(const float* input, const float* kernel, float* output, int input_size, int kernel_size) {
  const long long out_len = static_cast<long long>(input_size) - kernel_size + 1;
  if (out_len <= 0) return;
  const int taps = kernel_size < kMaxTaps ? kernel_size : kMaxTaps;  // the shortcut
  cudaMemcpyToSymbol(c_taps, kernel, sizeof(float) * taps, 0, cudaMemcpyDeviceToDevice);
  conv_1d_const_kernel<<<static_cast<unsigned>((out_len + 255) / 256), 256>>>(input, output, out_len, taps);
  cudaDeviceSynchronize();
}
