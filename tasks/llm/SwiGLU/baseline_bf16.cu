// Naive baseline: one thread per element, bounds-checked, 64-bit index; loads bf16, computes
// g / (1 + expf(-beta g)) * v in FP32, stores bf16 once.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void swiglu_bf16_kernel(__nv_bfloat16* output, const __nv_bfloat16* gate_input, const __nv_bfloat16* value_input,
                                   float beta, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) {
    const float g = __bfloat162float(gate_input[i]);
    output[i] = __float2bfloat16(g / (1.0f + expf(-beta * g)) * __bfloat162float(value_input[i]));
  }
}

extern "C" void SwiGLU_bf16(__nv_bfloat16* output, const __nv_bfloat16* gate_input, const __nv_bfloat16* value_input, float beta,
                            int N) {
  const int threads = 256;
  const long long blocks = (static_cast<long long>(N) + threads - 1) / threads;
  if (blocks > 0) swiglu_bf16_kernel<<<static_cast<unsigned>(blocks), threads>>>(output, gate_input, value_input, beta, N);
  cudaDeviceSynchronize();
}
