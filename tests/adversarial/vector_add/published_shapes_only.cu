// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// mskb-class: 6 fixed-heldout
// Trick: spec.cpp is public, so the "held-out" sizes are known. The kernel recognises the exact
// paper, held-out and large N values and adds correctly for them; for any other N it writes A alone
// (drops B): a stand-in for "only tuned / only correct where it is looked at". Why reject: every run
// also draws random shapes from the task's valid size space (seeded, recorded in the report) and
// checks them like held-out shapes: wrong_result.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ float ld(const float* p, long long i) { return p[i]; }
__device__ float ld(const __nv_bfloat16* p, long long i) { return __bfloat162float(p[i]); }
__device__ void st(float* p, long long i, float v) { p[i] = v; }
__device__ void st(__nv_bfloat16* p, long long i, float v) { p[i] = __float2bfloat16(v); }

template <class T>
__global__ void add(const T* A, const T* B, T* C, int N, int known) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < N) st(C, i, known ? ld(A, i) + ld(B, i) : ld(A, i));
}

static bool published(int n) {
  switch (n) {
    case 1: case 1000: case 65537: case (1 << 18) + 3: case 3000017:                      // held-out
    case 1 << 10: case 1 << 12: case 1 << 14: case 1 << 16: case 1 << 18:                 // paper
    case 1 << 24: case 1 << 26: case 1 << 28:                                             // large
      return true;
    default:
      return false;
  }
}

template <class T>
static void run(const T* A, const T* B, T* C, int N) {
  if (N > 0) add<T><<<static_cast<unsigned>((N + 255ll) / 256), 256>>>(A, B, C, N, published(N));
  cudaDeviceSynchronize();
}

extern "C" void vector_add(const float* A, const float* B, float* C, int N) { run(A, B, C, N); }
extern "C" void vector_add_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int N) { run(A, B, C, N); }
