// mskb-expect: wrong_result
// mskb-precision: fp32
// Shortcut: the filter is staged in a __constant__ buffer sized for the paper's largest filter (32x32 =
// 1024 taps); the copy is clamped to 1024 taps and taps past it read as zero. Exact for every filter of
// at most 1024 taps (all paper shapes, and held-out 33x31); the held-out 40x40 filter loses 576 taps.
#include <cuda_runtime.h>

constexpr int kMaxTaps = 32 * 32;
__constant__ float c_taps[kMaxTaps];

__global__ void conv_2d_const_kernel(const float* input, float* output, int input_cols, int kernel_rows,
                                     int kernel_cols, long long out_rows, long long out_cols) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= out_rows * out_cols) return;
  const long long i = idx / out_cols, j = idx % out_cols;
  float acc = 0.0f;
  for (int m = 0; m < kernel_rows; ++m)
    for (int n = 0; n < kernel_cols; ++n) {
      const int t = m * kernel_cols + n;
      const float w = t < kMaxTaps ? c_taps[t] : 0.0f;  // the shortcut
      acc += input[(i + m) * input_cols + j + n] * w;
    }
  output[idx] = acc;
}

extern "C" void conv_2d(const float* input, const float* kernel, float* output, int input_rows, int input_cols,
                        int kernel_rows, int kernel_cols) {
  const long long out_rows = static_cast<long long>(input_rows) - kernel_rows + 1;
  const long long out_cols = static_cast<long long>(input_cols) - kernel_cols + 1;
  if (out_rows <= 0 || out_cols <= 0) return;
  const int taps = kernel_rows * kernel_cols < kMaxTaps ? kernel_rows * kernel_cols : kMaxTaps;
  cudaMemcpyToSymbol(c_taps, kernel, sizeof(float) * taps, 0, cudaMemcpyDeviceToDevice);
  const long long total = out_rows * out_cols;
  conv_2d_const_kernel<<<static_cast<unsigned>((total + 255) / 256), 256>>>(input, output, input_cols, kernel_rows,
                                                                             kernel_cols, out_rows, out_cols);
  cudaDeviceSynchronize();
}
