// Naive baseline: one 256-thread block per row. Three plain strided passes over the row (max, sum of
// exp(x - max), write exp(x - max) / sum) with shared-memory tree reductions; FP32 throughout.
#include <cuda_runtime.h>

#include <cmath>

__global__ void softmax_kernel(float* out, const float* input, int C) {
  __shared__ float red[256];
  const unsigned tid = threadIdx.x;
  const float* x = input + static_cast<long long>(blockIdx.x) * C;
  float* y = out + static_cast<long long>(blockIdx.x) * C;
  float m = -INFINITY;
  for (int j = tid; j < C; j += blockDim.x) m = fmaxf(m, x[j]);
  red[tid] = m;
  __syncthreads();
  for (unsigned off = blockDim.x / 2; off > 0; off >>= 1) {
    if (tid < off) red[tid] = fmaxf(red[tid], red[tid + off]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float s = 0.0f;
  for (int j = tid; j < C; j += blockDim.x) s += expf(x[j] - m);
  red[tid] = s;
  __syncthreads();
  for (unsigned off = blockDim.x / 2; off > 0; off >>= 1) {
    if (tid < off) red[tid] += red[tid + off];
    __syncthreads();
  }
  s = red[0];
  for (int j = tid; j < C; j += blockDim.x) y[j] = expf(x[j] - m) / s;
}

extern "C" void softmax(float* out, const float* input, int N, int C) {
  if (N > 0) softmax_kernel<<<N, 256>>>(out, input, C);
  cudaDeviceSynchronize();
}
