// mskb-expect: rejected_static
// mskb-precision: fp32
// mskb-class: 8 shaped-timing
// Trick: the inverse of a persisting window: it resets the persisting-L2 lines of the whole context
// (cudaCtxResetPersistingL2Cache) and shrinks the set-aside to zero on every call, undoing a
// neighbour's or the vendor contender's cache configuration so that their timings, not its own,
// change. Why reject: process-wide L2 controls belong to the harness. The binary policy refuses
// cudaCtxResetPersistingL2Cache and cudaDeviceSetLimit.
#include <cuda_runtime.h>

__global__ void sig(float* out, const float* in, int N) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < N) out[i] = 1.0f / (1.0f + expf(-in[i]));
}

extern "C" void sigmoid(float* out, const float* input, const int N) {
  cudaCtxResetPersistingL2Cache();
  cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
  if (N > 0) sig<<<static_cast<unsigned>((N + 255) / 256), 256>>>(out, input, N);
  cudaDeviceSynchronize();
}
