// mskb-expect: wrong_result
// mskb-precision: bf16
// mskb-class: 3 state-across-calls
// Trick: keeps a device-side copy of the last output (cudaMalloc'd once, kept across calls) keyed on
// (A, B, C, N); a repeated call on the same buffers replays it with one device-to-device cudaMemcpy
// instead of reading A and B. Only allowed runtime calls are used. Why reject: state across calls.
// The harness's second seed of a shape runs on the same buffers with new input contents, so the
// replayed output is the first seed's: wrong_result.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void add(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int N) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < N) C[i] = __float2bfloat16(__bfloat162float(A[i]) + __bfloat162float(B[i]));
}

extern "C" void vector_add_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int N) {
  static const void *ka = nullptr, *kb = nullptr, *kc = nullptr;
  static int kn = -1;
  static __nv_bfloat16* cache = nullptr;
  static size_t cache_elems = 0;
  const size_t bytes = static_cast<size_t>(N > 0 ? N : 0) * sizeof(__nv_bfloat16);
  if (ka == A && kb == B && kc == C && kn == N && cache) {
    cudaMemcpy(C, cache, bytes, cudaMemcpyDeviceToDevice);
    return;
  }
  if (N > 0) add<<<static_cast<unsigned>((N + 255) / 256), 256>>>(A, B, C, N);
  if (cache_elems < static_cast<size_t>(N)) {
    if (cache) cudaFree(cache);
    cudaMalloc(&cache, bytes);
    cache_elems = static_cast<size_t>(N);
  }
  if (cache && bytes) cudaMemcpy(cache, C, bytes, cudaMemcpyDeviceToDevice);
  ka = A;
  kb = B;
  kc = C;
  kn = N;
}
