// Naive baseline: one thread per element computes (X[i] - Y[i])^2; a shared-memory tree reduces each
// block to one partial sum, divided by N and added to *loss (zeroed by the caller) with one atomicAdd
// per block.
#include <cuda_runtime.h>

__global__ void mse_kernel(float* loss, const float* X, const float* Y, int N) {
  __shared__ float s[256];
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const float d = i < N ? X[i] - Y[i] : 0.0f;
  s[threadIdx.x] = d * d;
  __syncthreads();
  for (unsigned off = blockDim.x / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) s[threadIdx.x] += s[threadIdx.x + off];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(loss, s[0] / static_cast<float>(N));
}

extern "C" void MSE_loss(float* loss, const float* X, const float* Y, int N) {
  const int threads = 256;
  const long long blocks = (static_cast<long long>(N) + threads - 1) / threads;
  if (blocks > 0) mse_kernel<<<static_cast<unsigned>(blocks), threads>>>(loss, X, Y, N);
  cudaDeviceSynchronize();
}
