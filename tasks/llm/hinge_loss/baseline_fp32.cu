// Naive baseline: one thread per element, bounds-checked, 64-bit index; y = 2t - 1, max(0, 1 - y p).
#include <cuda_runtime.h>

__global__ void hinge_kernel(float* loss, const float* predictions, const int* targets, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) {
    const float y = 2.0f * static_cast<float>(targets[i]) - 1.0f;
    loss[i] = fmaxf(0.0f, 1.0f - y * predictions[i]);
  }
}

extern "C" void hinge_loss(float* loss, const float* predictions, const int* targets, int N) {
  const int threads = 256;
  const long long blocks = (static_cast<long long>(N) + threads - 1) / threads;
  if (blocks > 0) hinge_kernel<<<static_cast<unsigned>(blocks), threads>>>(loss, predictions, targets, N);
  cudaDeviceSynchronize();
}
