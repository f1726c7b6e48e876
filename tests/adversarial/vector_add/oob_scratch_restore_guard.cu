// mskb-expect: sanitizer_error
// mskb-precision: fp32
// mskb-class: 7 guard-restoring-memory-error
// mskb-gate: memcheck
// Trick: uses the 256 floats past the end of C as scratch (a staging area for a block's results)
// and, in the same kernel, puts back the bytes that were there before returning, so the harness's
// poisoned guard zone after C looks untouched and the output is right. The out-of-bounds reads and
// writes are real (past the end of the caller's allocation: in another program they corrupt a
// neighbour's data). Why reject: a memory error is a memory error; only compute-sanitizer memcheck
// sees it: sanitizer_error under --memcheck (cudamaster gates candidates on memcheck).
#include <cuda_runtime.h>

__global__ void add(const float* A, const float* B, float* C, int N) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  const float v = i < N ? A[i] + B[i] : 0.0f;
  if (blockIdx.x == 0) {
    // Block 0 only: stage through the 256 floats after C[N - 1] (out of bounds), then restore them.
    float* scratch = C + N;
    const float saved = scratch[threadIdx.x];
    scratch[threadIdx.x] = v;
    __syncthreads();
    if (i < N) C[i] = scratch[threadIdx.x];
    __syncthreads();
    scratch[threadIdx.x] = saved;
    return;
  }
  if (i < N) C[i] = v;
}

extern "C" void vector_add(const float* A, const float* B, float* C, int N) {
  if (N > 0) add<<<static_cast<unsigned>((N + 255ll) / 256), 256>>>(A, B, C, N);
  cudaDeviceSynchronize();
}
