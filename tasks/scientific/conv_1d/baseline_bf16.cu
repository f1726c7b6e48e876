// Naive baseline: one thread per output element, a plain loop over the kernel taps with bf16 loads and
// an FP32 accumulator, one bf16 rounding at the store (valid cross-correlation, 64-bit indices).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void conv_1d_bf16_kernel(const __nv_bfloat16* input, const __nv_bfloat16* kernel, __nv_bfloat16* output,
                                    long long out_len, int k) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= out_len) return;
  float acc = 0.0f;
  for (int t = 0; t < k; ++t) acc += __bfloat162float(input[i + t]) * __bfloat162float(kernel[t]);
  output[i] = __float2bfloat16(acc);
}

extern "C" void conv_1d_bf16(const __nv_bfloat16* input, const __nv_bfloat16* kernel, __nv_bfloat16* output,
                             int input_size, int kernel_size) {
  const long long out_len = static_cast<long long>(input_size) - kernel_size + 1;
  if (out_len <= 0 || kernel_size <= 0) return;
  const int threads = 256;
  conv_1d_bf16_kernel<<<static_cast<unsigned>((out_len + threads - 1) / threads), threads>>>(input, kernel, output,
                                                                                              out_len, kernel_size);
  cudaDeviceSynchronize();
}
