// mskb-expect: rejected_static
// mskb-precision: fp32
// mskb-class: 4 work-after-return
// Trick: enqueues a host callback (cudaLaunchHostFunc) behind its kernel; the callback runs on a
// CUDA-owned thread after the entry point returned (here it spins for a while, but it could launch
// more work or touch the outputs once the harness has started reading them). Why reject: host
// callbacks are work after return on a thread the harness does not control. The binary policy
// refuses cudaLaunchHostFunc.
#include <cuda_runtime.h>

__global__ void relu(float* out, const float* in, int N) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < N) out[i] = fmaxf(in[i], 0.0f);
}

static void CUDART_CB late(void* p) {
  volatile long long* spin = static_cast<volatile long long*>(p);
  for (long long k = 0; k < (1ll << 22); ++k) *spin = *spin + 1;
}

extern "C" void RELU(float* output, const float* input, int N) {
  static long long counter = 0;
  if (N > 0) relu<<<static_cast<unsigned>((N + 255) / 256), 256>>>(output, input, N);
  cudaLaunchHostFunc(0, late, &counter);
}
