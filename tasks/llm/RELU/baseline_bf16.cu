// Naive baseline: one thread per element; loads bf16, compares in FP32, stores bf16 once.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void relu_bf16_kernel(__nv_bfloat16* output, const __nv_bfloat16* input, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) output[i] = __float2bfloat16(fmaxf(__bfloat162float(input[i]), 0.0f));
}

extern "C" void RELU_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, int N) {
  const int threads = 256;
  const long long blocks = (static_cast<long long>(N) + threads - 1) / threads;
  if (blocks > 0) relu_bf16_kernel<<<static_cast<unsigned>(blocks), threads>>>(output, input, N);
  cudaDeviceSynchronize();
}
