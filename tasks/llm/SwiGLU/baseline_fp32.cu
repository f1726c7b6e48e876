// Naive baseline: one thread per element, bounds-checked, 64-bit index; g / (1 + expf(-beta g)) * v
// (an overflowing expf gives g / inf = 0, the right limit).
#include <cuda_runtime.h>

__global__ void swiglu_kernel(float* output, const float* gate_input, const float* value_input, float beta, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) {
    const float g = gate_input[i];
    output[i] = g / (1.0f + expf(-beta * g)) * value_input[i];
  }
}

extern "C" void SwiGLU(float* output, const float* gate_input, const float* value_input, float beta, int N) {
  const int threads = 256;
  const long long blocks = (static_cast<long long>(N) + threads - 1) / threads;
  if (blocks > 0) swiglu_kernel<<<static_cast<unsigned>(blocks), threads>>>(output, gate_input, value_input, beta, N);
  cudaDeviceSynchronize();
}
