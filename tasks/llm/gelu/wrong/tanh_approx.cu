// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: the tanh approximation 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) instead of the exact
// erf form. It differs by up to 4.7e-4 absolute (x = -2.7) and by 10% relative around x = -3, which the
// FP32 tolerance (2e-6 + 1e-5 |ref|) and the BF16 one (1e-5 + 8e-3 |ref|) both reject.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float gelu_tanh(float x) {
  const float k = 0.7978845608028654f;  // sqrt(2 / pi)
  return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
}

__global__ void gelu_tanh_kernel(float* output, const float* input, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) output[i] = gelu_tanh(input[i]);
}

__global__ void gelu_tanh_bf16_kernel(__nv_bfloat16* output, const __nv_bfloat16* input, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) output[i] = __float2bfloat16(gelu_tanh(__bfloat162float(input[i])));
}

extern "C" void gelu(float* output, const float* input, const int N) {
  const long long blocks = (static_cast<long long>(N) + 255) / 256;
  if (blocks > 0) gelu_tanh_kernel<<<static_cast<unsigned>(blocks), 256>>>(output, input, N);
  cudaDeviceSynchronize();
}

extern "C" void gelu_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, const int N) {
  const long long blocks = (static_cast<long long>(N) + 255) / 256;
  if (blocks > 0) gelu_tanh_bf16_kernel<<<static_cast<unsigned>(blocks), 256>>>(output, input, N);
  cudaDeviceSynchronize();
}
