// Naive baseline: one thread per element loads bf16 X[i], Y[i] and squares the difference in FP32; a
// shared-memory tree (FP32) reduces each block, whose sum / N is added to the float *loss (zeroed by the
// caller) with one atomicAdd per block.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void mse_bf16_kernel(float* loss, const __nv_bfloat16* X, const __nv_bfloat16* Y, int N) {
  __shared__ float s[256];
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const float d = i < N ? __bfloat162float(X[i]) - __bfloat162float(Y[i]) : 0.0f;
  s[threadIdx.x] = d * d;
  __syncthreads();
  for (unsigned off = blockDim.x / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) s[threadIdx.x] += s[threadIdx.x + off];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(loss, s[0] / static_cast<float>(N));
}

extern "C" void MSE_loss_bf16(float* loss, const __nv_bfloat16* X, const __nv_bfloat16* Y, int N) {
  const int threads = 256;
  const long long blocks = (static_cast<long long>(N) + threads - 1) / threads;
  if (blocks > 0) mse_bf16_kernel<<<static_cast<unsigned>(blocks), threads>>>(loss, X, Y, N);
  cudaDeviceSynchronize();
}
