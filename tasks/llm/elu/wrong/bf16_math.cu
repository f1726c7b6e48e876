// mskb-expect: wrong_result
// mskb-precision: bf16
// Shortcut: native bf16 arithmetic (hexp, __hsub, __hmul) instead of FP32 math. exp(x) is rounded to
// 8 mantissa bits before 1 is subtracted, so for x just below 0 the result exp(x) - 1 cancels to a
// multiple of 2^-8: ELU(-0.01) comes out as -0.0117 or -0.0078 (exp rounded to either bf16 neighbour of
// 0.990) instead of -0.00996, ~20% off. Inputs near zero are a few percent of every paper size.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void elu_bf16_math_kernel(__nv_bfloat16* output, const __nv_bfloat16* input, int N, float alpha) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= N) return;
  const __nv_bfloat16 x = input[i];
  const __nv_bfloat16 zero = __float2bfloat16(0.0f), one = __float2bfloat16(1.0f);
  output[i] = __hgt(x, zero) ? x : __hmul(__float2bfloat16(alpha), __hsub(hexp(x), one));
}

extern "C" void elu_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, const int N, float alpha) {
  const long long blocks = (static_cast<long long>(N) + 255) / 256;
  if (blocks > 0) elu_bf16_math_kernel<<<static_cast<unsigned>(blocks), 256>>>(output, input, N, alpha);
  cudaDeviceSynchronize();
}
