// Naive baseline: one thread per output element (flattened 64-bit index), plain loops over the filter
// with bf16 loads and an FP32 accumulator, one bf16 rounding at the store (valid cross-correlation).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void conv_2d_bf16_kernel(const __nv_bfloat16* input, const __nv_bfloat16* kernel, __nv_bfloat16* output,
                                    int input_cols, int kernel_rows, int kernel_cols, long long out_rows,
                                    long long out_cols) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= out_rows * out_cols) return;
  const long long i = idx / out_cols, j = idx % out_cols;
  float acc = 0.0f;
  for (int m = 0; m < kernel_rows; ++m) {
    const __nv_bfloat16* row = input + (i + m) * input_cols + j;
    for (int n = 0; n < kernel_cols; ++n)
      acc += __bfloat162float(row[n]) * __bfloat162float(kernel[m * kernel_cols + n]);
  }
  output[idx] = __float2bfloat16(acc);
}

extern "C" void conv_2d_bf16(const __nv_bfloat16* input, const __nv_bfloat16* kernel, __nv_bfloat16* output,
                             int input_rows, int input_cols, int kernel_rows, int kernel_cols) {
  const long long out_rows = static_cast<long long>(input_rows) - kernel_rows + 1;
  const long long out_cols = static_cast<long long>(input_cols) - kernel_cols + 1;
  if (out_rows <= 0 || out_cols <= 0 || kernel_rows <= 0 || kernel_cols <= 0) return;
  const int threads = 256;
  const long long total = out_rows * out_cols;
  conv_2d_bf16_kernel<<<static_cast<unsigned>((total + threads - 1) / threads), threads>>>(
      input, kernel, output, input_cols, kernel_rows, kernel_cols, out_rows, out_cols);
  cudaDeviceSynchronize();
}
