// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: uses the {0, 1} targets directly as the label instead of mapping them to y = 2t - 1 = +-1.
// Elements with target 1 are right; every target-0 element gets max(0, 1 - 0 * p) = 1 instead of
// max(0, 1 + p).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void hinge_01_kernel(float* loss, const float* predictions, const int* targets, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) loss[i] = fmaxf(0.0f, 1.0f - static_cast<float>(targets[i]) * predictions[i]);
}

__global__ void hinge_01_bf16_kernel(__nv_bfloat16* loss, const __nv_bfloat16* predictions, const int* targets, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) loss[i] = __float2bfloat16(fmaxf(0.0f, 1.0f - static_cast<float>(targets[i]) * __bfloat162float(predictions[i])));
}

extern "C" void hinge_loss(float* loss, const float* predictions, const int* targets, int N) {
  const long long blocks = (static_cast<long long>(N) + 255) / 256;
  if (blocks > 0) hinge_01_kernel<<<static_cast<unsigned>(blocks), 256>>>(loss, predictions, targets, N);
  cudaDeviceSynchronize();
}

extern "C" void hinge_loss_bf16(__nv_bfloat16* loss, const __nv_bfloat16* predictions, const int* targets, int N) {
  const long long blocks = (static_cast<long long>(N) + 255) / 256;
  if (blocks > 0) hinge_01_bf16_kernel<<<static_cast<unsigned>(blocks), 256>>>(loss, predictions, targets, N);
  cudaDeviceSynchronize();
}
