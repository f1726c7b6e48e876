// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: sigmoid(z) = e / (1 + e) with e = exp(z), unguarded: for beta * g > 88.7 exp overflows to
// inf and inf / inf = NaN. Right for the U(-5, 5) bulk of the gates; the outliers (one in 16, up to
// |g| = 100) turn into NaN.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float swiglu_ratio(float g, float v, float beta) {
  const float e = expf(beta * g);
  return g * (e / (1.0f + e)) * v;
}

__global__ void swiglu_ratio_kernel(float* output, const float* gate, const float* value, float beta, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) output[i] = swiglu_ratio(gate[i], value[i], beta);
}

__global__ void swiglu_ratio_bf16_kernel(__nv_bfloat16* output, const __nv_bfloat16* gate, const __nv_bfloat16* value, float beta,
                                         int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) output[i] = __float2bfloat16(swiglu_ratio(__bfloat162float(gate[i]), __bfloat162float(value[i]), beta));
}

extern "C" void SwiGLU(float* output, const float* gate_input, const float* value_input, float beta, int N) {
  const long long blocks = (static_cast<long long>(N) + 255) / 256;
  if (blocks > 0) swiglu_ratio_kernel<<<static_cast<unsigned>(blocks), 256>>>(output, gate_input, value_input, beta, N);
  cudaDeviceSynchronize();
}

extern "C" void SwiGLU_bf16(__nv_bfloat16* output, const __nv_bfloat16* gate_input, const __nv_bfloat16* value_input, float beta,
                            int N) {
  const long long blocks = (static_cast<long long>(N) + 255) / 256;
  if (blocks > 0) swiglu_ratio_bf16_kernel<<<static_cast<unsigned>(blocks), 256>>>(output, gate_input, value_input, beta, N);
  cudaDeviceSynchronize();
}
