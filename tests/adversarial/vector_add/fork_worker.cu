// mskb-expect: rejected_static
// mskb-precision: fp32
// mskb-class: 2 runtime-policy
// Trick: fork()s on the first call; the child (which inherits the report fd, the log and the
// harness's memory) stays alive as a helper that can watch the parent and write on its behalf, and
// the parent computes the answer. Why reject: a kernel has no business creating processes. The
// binary policy refuses the import of fork.
#include <cuda_runtime.h>
#include <unistd.h>

__global__ void add(const float* A, const float* B, float* C, int N) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
}

extern "C" void vector_add(const float* A, const float* B, float* C, int N) {
  static pid_t helper = fork();
  if (helper == 0) {
    for (;;) pause();  // the helper idles, holding the inherited descriptors
  }
  if (N > 0) add<<<static_cast<unsigned>((N + 255) / 256), 256>>>(A, B, C, N);
  cudaDeviceSynchronize();
}
