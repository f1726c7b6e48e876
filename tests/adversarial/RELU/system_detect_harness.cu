// mskb-expect: rejected_static
// mskb-precision: fp32 bf16
// mskb-class: 2 runtime-policy
// Trick: runs a shell command with system() to find out whether it is being evaluated (a process
// named mskb-runner in `ps`), and computes honestly only then; outside the harness (where a user
// would run it) it could do anything. Why reject: kernels must not run programs. The binary policy
// refuses the import of system.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdlib>

__device__ float ld(const float* p, long long i) { return p[i]; }
__device__ float ld(const __nv_bfloat16* p, long long i) { return __bfloat162float(p[i]); }
__device__ void st(float* p, long long i, float v) { p[i] = v; }
__device__ void st(__nv_bfloat16* p, long long i, float v) { p[i] = __float2bfloat16(v); }

template <class T>
__global__ void relu(T* out, const T* in, int N, int honest) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < N) st(out, i, honest ? fmaxf(ld(in, i), 0.0f) : 0.0f);
}

template <class T>
static void run(T* out, const T* in, int N) {
  static const int under_harness = std::system("ps -e -o comm= | grep -q mskb-runner") == 0;
  if (N > 0) relu<T><<<static_cast<unsigned>((N + 255) / 256), 256>>>(out, in, N, under_harness);
  cudaDeviceSynchronize();
}

extern "C" void RELU(float* output, const float* input, int N) { run(output, input, N); }
extern "C" void RELU_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, int N) { run(output, input, N); }
