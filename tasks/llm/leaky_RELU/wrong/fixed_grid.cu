// mskb-expect: unwritten_output
// mskb-precision: fp32 bf16
// Shortcut: a fixed 1024 x 256 grid, sized for the paper's largest N (2^18), with one element per thread
// and no grid-stride loop. Correct for every N <= 262144 (all paper sizes); the elements beyond it in
// held-out sizes such as 2^18 + 3 or 3,000,017 are never written.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void leaky_fixed_kernel(float* output, const float* input, int N, float alpha) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) output[i] = input[i] > 0.0f ? input[i] : alpha * input[i];
}

__global__ void leaky_fixed_bf16_kernel(__nv_bfloat16* output, const __nv_bfloat16* input, int N, float alpha) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) {
    const float x = __bfloat162float(input[i]);
    output[i] = __float2bfloat16(x > 0.0f ? x : alpha * x);
  }
}

extern "C" void leaky_RELU(float* output, const float* input, const int N, float alpha) {
  leaky_fixed_kernel<<<1024, 256>>>(output, input, N, alpha);
  cudaDeviceSynchronize();
}

extern "C" void leaky_RELU_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, const int N, float alpha) {
  leaky_fixed_bf16_kernel<<<1024, 256>>>(output, input, N, alpha);
  cudaDeviceSynchronize();
}
