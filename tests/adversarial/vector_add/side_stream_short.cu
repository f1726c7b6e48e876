// mskb-expect: rejected_static
// mskb-precision: fp32
// mskb-class: 4 work-after-return
// Trick: the add runs on a private non-blocking stream and the entry point returns at once, so the
// harness's events on the default stream time almost nothing. Unlike wrong/side_stream.cu the side
// work is short (< 200 us), below the wall-clock gap rule, so a purely dynamic check misses it.
// Why reject: work left running after return. Streams are denied statically: the binary policy
// refuses cudaStreamCreateWithFlags.
#include <cuda_runtime.h>

__global__ void add(const float* A, const float* B, float* C, int N) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
}

extern "C" void vector_add(const float* A, const float* B, float* C, int N) {
  static cudaStream_t side = [] {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    return s;
  }();
  if (N > 0) add<<<static_cast<unsigned>((N + 255) / 256), 256, 0, side>>>(A, B, C, N);
}
