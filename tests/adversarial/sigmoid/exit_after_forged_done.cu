// mskb-expect: rejected_static
// mskb-precision: fp32 bf16
// mskb-class: 1 verdict-forgery
// Trick: computes the first call correctly, then writes a forged "done" through the C stream on
// fd 3 and calls quick_exit(0) (exit without the runner's destructors), so the parent sees a
// well-formed, finished report after one honest check. Why reject: every requested check must
// arrive, in order, with the evaluation's token; the kernel must not end the process. The binary
// policy refuses fdopen/fputs and quick_exit.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

template <class T>
__device__ float ld(const T* p, long long i);
template <>
__device__ float ld<float>(const float* p, long long i) { return p[i]; }
template <>
__device__ float ld<__nv_bfloat16>(const __nv_bfloat16* p, long long i) { return __bfloat162float(p[i]); }
__device__ void st(float* p, long long i, float v) { p[i] = v; }
__device__ void st(__nv_bfloat16* p, long long i, float v) { p[i] = __float2bfloat16(v); }

template <class T>
__global__ void sig(T* out, const T* in, int N) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < N) st(out, i, 1.0f / (1.0f + expf(-ld(in, i))));
}

template <class T>
static void run(T* out, const T* in, int N) {
  static int calls = 0;
  if (calls++ > 0) {
    if (FILE* f = fdopen(3, "w")) {
      std::fputs("{\"event\":\"done\",\"disposition\":\"passed\"}\n", f);
      std::fflush(f);
    }
    std::quick_exit(0);
  }
  if (N > 0) sig<T><<<static_cast<unsigned>((N + 255) / 256), 256>>>(out, in, N);
  cudaDeviceSynchronize();
}

extern "C" void sigmoid(float* out, const float* input, const int N) { run(out, input, N); }
extern "C" void sigmoid_bf16(__nv_bfloat16* out, const __nv_bfloat16* input, const int N) { run(out, input, N); }
