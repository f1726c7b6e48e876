// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: tanh(x) = (e - 1) / (e + 1) with e = exp(2x), unguarded: for x > 44.4 exp(2x) overflows to
// inf and inf / inf = NaN. Fine for the U(-5, 5) bulk of the data; the large-magnitude inputs (one in 16,
// up to 100) turn into NaN.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float tanh_ratio(float x) {
  const float e = expf(2.0f * x);
  return (e - 1.0f) / (e + 1.0f);
}

__global__ void tanh_ratio_kernel(float* out, const float* input, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) out[i] = tanh_ratio(input[i]);
}

__global__ void tanh_ratio_bf16_kernel(__nv_bfloat16* out, const __nv_bfloat16* input, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) out[i] = __float2bfloat16(tanh_ratio(__bfloat162float(input[i])));
}

extern "C" void row_tanh(float* out, const float* input, const int N) {
  const long long blocks = (static_cast<long long>(N) + 255) / 256;
  if (blocks > 0) tanh_ratio_kernel<<<static_cast<unsigned>(blocks), 256>>>(out, input, N);
  cudaDeviceSynchronize();
}

extern "C" void row_tanh_bf16(__nv_bfloat16* out, const __nv_bfloat16* input, const int N) {
  const long long blocks = (static_cast<long long>(N) + 255) / 256;
  if (blocks > 0) tanh_ratio_bf16_kernel<<<static_cast<unsigned>(blocks), 256>>>(out, input, N);
  cudaDeviceSynchronize();
}
