// Wrong: launches on its own non-blocking stream and returns without waiting, so the caller's
// timing (events on the default stream) sees almost nothing. The output is not there when the
// entry point returns: the harness reads it before synchronising the device.
// mskb-expect: rejected_static
// Since the binary policy (docs/harness.md, "Threat model"), creating a stream is refused before
// the kernel runs: rejected_static, naming cudaStreamCreateWithFlags. The dynamic device-idle check
// (unsynced) stays for what the policy cannot see.
// mskb-precision: bf16
#include <cuda_bf16.h>
#include <cuda_runtime.h>
__global__ void slow_add(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int N) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i >= N) return;
  float acc = 0.0f;
  // Busy work (~10 ms: 2^21 dependent FMAs) so the device is still busy well past the harness's
  // 200 us threshold when the entry point has returned. (20000 iterations was too short: seen on
  // the H200 as unwritten_output, not unsynced.)
  for (int r = 0; r < (1 << 21); ++r) acc = acc * 0.999f + 1e-30f;
  C[i] = __float2bfloat16(__bfloat162float(A[i]) + __bfloat162float(B[i]) + acc * 0.0f);
}
extern "C" void vector_add_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int N) {
  static cudaStream_t s = [] {
    cudaStream_t t;
    cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking);
    return t;
  }();
  slow_add<<<(N + 255) / 256, 256, 0, s>>>(A, B, C, N);
}
