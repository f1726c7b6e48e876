// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: hard-codes the standard SELU constants (alpha = 1.6732632, lambda = 1.0507010, as in
// PyTorch) instead of using the alpha and lambda arguments. The task passes the published non-standard
// alpha = 1.67, lambda = 1.0, so every output is 5% too large.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float selu_std(float x) {
  const float alpha = 1.6732632423543772f, lambda = 1.0507009873554805f;
  return lambda * (x > 0.0f ? x : alpha * expm1f(x));
}

__global__ void selu_std_kernel(float* output, const float* input, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) output[i] = selu_std(input[i]);
}

__global__ void selu_std_bf16_kernel(__nv_bfloat16* output, const __nv_bfloat16* input, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) output[i] = __float2bfloat16(selu_std(__bfloat162float(input[i])));
}

extern "C" void selu(float* output, const float* input, const int N, float, float) {
  const long long blocks = (static_cast<long long>(N) + 255) / 256;
  if (blocks > 0) selu_std_kernel<<<static_cast<unsigned>(blocks), 256>>>(output, input, N);
  cudaDeviceSynchronize();
}

extern "C" void selu_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, const int N, float, float) {
  const long long blocks = (static_cast<long long>(N) + 255) / 256;
  if (blocks > 0) selu_std_bf16_kernel<<<static_cast<unsigned>(blocks), 256>>>(output, input, N);
  cudaDeviceSynchronize();
}
