// Naive baseline: one thread per element, bounds-checked, 64-bit index; loads the bf16 prediction,
// computes max(0, 1 - y p) with y = 2t - 1 in FP32, stores bf16 once.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void hinge_bf16_kernel(__nv_bfloat16* loss, const __nv_bfloat16* predictions, const int* targets, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) {
    const float y = 2.0f * static_cast<float>(targets[i]) - 1.0f;
    loss[i] = __float2bfloat16(fmaxf(0.0f, 1.0f - y * __bfloat162float(predictions[i])));
  }
}

extern "C" void hinge_loss_bf16(__nv_bfloat16* loss, const __nv_bfloat16* predictions, const int* targets, int N) {
  const int threads = 256;
  const long long blocks = (static_cast<long long>(N) + threads - 1) / threads;
  if (blocks > 0) hinge_bf16_kernel<<<static_cast<unsigned>(blocks), threads>>>(loss, predictions, targets, N);
  cudaDeviceSynchronize();
}
