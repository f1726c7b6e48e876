// mskb-expect: rejected_static
// mskb-precision: fp32
// mskb-class: 4 work-after-return
// Trick: never names a stream-creating function: it asks the runtime for the driver's cuStreamCreate
// through cudaGetDriverEntryPointByVersion (a function pointer by string) and launches on that stream, then
// returns without waiting. Neither a text screen nor an import list shows cudaStreamCreate.
// Why reject: work after return. The binary policy denies cudaGetDriverEntryPointByVersion (and
// cudaGetDriverEntryPoint, cuGetProcAddress) because they reach every denied driver function by name.
#include <cuda_runtime.h>

__global__ void add(const float* A, const float* B, float* C, int N) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
}

typedef int (*stream_create_fn)(void** stream, unsigned flags);

extern "C" void vector_add(const float* A, const float* B, float* C, int N) {
  static cudaStream_t side = nullptr;
  if (!side) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuStreamCreate", &fn, 12000, cudaEnableDefault, &q) == cudaSuccess && fn) {
      void* s = nullptr;
      reinterpret_cast<stream_create_fn>(fn)(&s, 0x1 /* CU_STREAM_NON_BLOCKING */);
      side = static_cast<cudaStream_t>(s);
    }
  }
  if (N > 0) add<<<static_cast<unsigned>((N + 255) / 256), 256, 0, side>>>(A, B, C, N);
}
