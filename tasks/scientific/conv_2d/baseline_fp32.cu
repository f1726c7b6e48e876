// Naive baseline: one thread per output element (flattened 64-bit index), plain loops over the filter
// rows and columns (valid cross-correlation, one channel, row-major).
#include <cuda_runtime.h>

__global__ void conv_2d_kernel(const float* input, const float* kernel, float* output, int input_cols, int kernel_rows,
                               int kernel_cols, long long out_rows, long long out_cols) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= out_rows * out_cols) return;
  const long long i = idx / out_cols, j = idx % out_cols;
  float acc = 0.0f;
  for (int m = 0; m < kernel_rows; ++m) {
    const float* row = input + (i + m) * input_cols + j;
    for (int n = 0; n < kernel_cols; ++n) acc += row[n] * kernel[m * kernel_cols + n];
  }
  output[idx] = acc;
}

extern "C" void conv_2d(const float* input, const float* kernel, float* output, int input_rows, int input_cols,
                        int kernel_rows, int kernel_cols) {
  const long long out_rows = static_cast<long long>(input_rows) - kernel_rows + 1;
  const long long out_cols = static_cast<long long>(input_cols) - kernel_cols + 1;
  if (out_rows <= 0 || out_cols <= 0 || kernel_rows <= 0 || kernel_cols <= 0) return;
  const int threads = 256;
  const long long total = out_rows * out_cols;
  conv_2d_kernel<<<static_cast<unsigned>((total + threads - 1) / threads), threads>>>(
      input, kernel, output, input_cols, kernel_rows, kernel_cols, out_rows, out_cols);
  cudaDeviceSynchronize();
}
