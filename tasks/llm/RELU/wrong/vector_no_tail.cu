// mskb-expect: unwritten_output
// mskb-precision: fp32 bf16
// Shortcut: vectorised loads/stores (float4 for fp32, 8 x bf16 in one uint4 for bf16) with the grid
// sized N / width and no remainder loop. Every paper size is a power of two, so it passes there; the
// last N % 4 (fp32) or N % 8 (bf16) outputs of held-out sizes such as 1, 999 or 65537 are never written.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void relu_vec4_kernel(float4* output, const float4* input, long long n4) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  float4 v = input[i];
  v.x = fmaxf(v.x, 0.0f);
  v.y = fmaxf(v.y, 0.0f);
  v.z = fmaxf(v.z, 0.0f);
  v.w = fmaxf(v.w, 0.0f);
  output[i] = v;
}

__global__ void relu_vec8_bf16_kernel(uint4* output, const uint4* input, long long n8) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n8) return;
  uint4 v = input[i];
  __nv_bfloat162* h = reinterpret_cast<__nv_bfloat162*>(&v);
  const __nv_bfloat162 zero = __float2bfloat162_rn(0.0f);
  for (int k = 0; k < 4; ++k) h[k] = __hmax2(h[k], zero);
  output[i] = v;
}

extern "C" void RELU(float* output, const float* input, int N) {
  const long long n4 = N / 4;
  const long long blocks = (n4 + 255) / 256;
  if (blocks > 0)
    relu_vec4_kernel<<<static_cast<unsigned>(blocks), 256>>>(reinterpret_cast<float4*>(output),
                                                             reinterpret_cast<const float4*>(input), n4);
  cudaDeviceSynchronize();
}

extern "C" void RELU_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, int N) {
  const long long n8 = N / 8;
  const long long blocks = (n8 + 255) / 256;
  if (blocks > 0)
    relu_vec8_bf16_kernel<<<static_cast<unsigned>(blocks), 256>>>(reinterpret_cast<uint4*>(output),
                                                                  reinterpret_cast<const uint4*>(input), n8);
  cudaDeviceSynchronize();
}
