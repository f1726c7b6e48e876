// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: sigmoid(x) = e / (1 + e) with e = exp(x), algebraically equal to 1 / (1 + exp(-x)) but
// unguarded: for x > 88.7 exp(x) overflows to inf and inf / inf = NaN. Right for |x| <= 88 (the
// U(-5, 5) bulk of the data); the large-magnitude inputs (one in 16, up to 100) turn into NaN.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float sigmoid_ratio(float x) {
  const float e = expf(x);
  return e / (1.0f + e);
}

__global__ void sigmoid_ratio_kernel(float* out, const float* input, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) out[i] = sigmoid_ratio(input[i]);
}

__global__ void sigmoid_ratio_bf16_kernel(__nv_bfloat16* out, const __nv_bfloat16* input, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) out[i] = __float2bfloat16(sigmoid_ratio(__bfloat162float(input[i])));
}

extern "C" void sigmoid(float* out, const float* input, const int N) {
  const long long blocks = (static_cast<long long>(N) + 255) / 256;
  if (blocks > 0) sigmoid_ratio_kernel<<<static_cast<unsigned>(blocks), 256>>>(out, input, N);
  cudaDeviceSynchronize();
}

extern "C" void sigmoid_bf16(__nv_bfloat16* out, const __nv_bfloat16* input, const int N) {
  const long long blocks = (static_cast<long long>(N) + 255) / 256;
  if (blocks > 0) sigmoid_ratio_bf16_kernel<<<static_cast<unsigned>(blocks), 256>>>(out, input, N);
  cudaDeviceSynchronize();
}
