// The built-in vector_add baselines (tasks/algebra/vector_add/baseline_{fp32,bf16}.cu) under the
// task file's entry points vadd and vadd_bf16: one thread per element, bounds-checked.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void vadd_kernel(const float* A, const float* B, float* C, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
}

extern "C" void vadd(const float* A, const float* B, float* C, int N) {
  const int threads = 256;
  const long long blocks = (static_cast<long long>(N) + threads - 1) / threads;
  vadd_kernel<<<static_cast<unsigned>(blocks), threads>>>(A, B, C, N);
  cudaDeviceSynchronize();
}

__global__ void vadd_bf16_kernel(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) C[i] = __float2bfloat16(__bfloat162float(A[i]) + __bfloat162float(B[i]));
}

extern "C" void vadd_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int N) {
  const int threads = 256;
  const long long blocks = (static_cast<long long>(N) + threads - 1) / threads;
  vadd_bf16_kernel<<<static_cast<unsigned>(blocks), threads>>>(A, B, C, N);
  cudaDeviceSynchronize();
}
