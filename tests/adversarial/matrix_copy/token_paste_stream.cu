// mskb-expect: rejected_static
// mskb-precision: fp32 bf16
// mskb-class: 4 work-after-return
// Trick: hides cudaStreamCreateWithFlags from cudamaster's text screen with token pasting
// (#define CAT(a, b) a##b; CAT(cudaStream, CreateWithFlags)), then copies on the hidden side stream
// and returns without waiting. A source-text screen sees neither "cudaStreamCreate" nor "stream(".
// Why reject: work after return on a side stream. The binary policy reads the built object, where the
// pasted name is an ordinary import of cudaStreamCreateWithFlags.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#define CAT(a, b) a##b
#define MAKE_SIDE(h) CAT(cudaStr, eamCreateWithFlags)(&h, CAT(cudaStreamNon, Blocking))

template <class T>
__global__ void copy(const T* A, T* B, long long n) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < n) B[i] = A[i];
}

template <class T>
static void run(T* A, T* B, int M, int N) {
  static CAT(cudaStr, eam_t) h = nullptr;
  if (!h) MAKE_SIDE(h);
  const long long n = static_cast<long long>(M) * N;
  if (n > 0) copy<T><<<static_cast<unsigned>((n + 255) / 256), 256, 0, h>>>(A, B, n);
}

extern "C" void matrix_copy(float* A, float* B, int M, int N) { run(A, B, M, N); }
extern "C" void matrix_copy_bf16(__nv_bfloat16* A, __nv_bfloat16* B, int M, int N) { run(A, B, M, N); }
