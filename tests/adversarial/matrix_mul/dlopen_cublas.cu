// mskb-expect: rejected_static
// mskb-precision: fp32
// mskb-class: 2 runtime-policy
// Trick: a user kernel may link only the CUDA runtime, so this one loads cuBLAS itself with
// dlopen/dlsym at run time (no -lcublas, no `// mskb-link:` line) and calls cublasSgemm (row-major
// C = A B computed as the column-major C^T = B^T A^T): vendor speed passed off as the user's kernel.
// Why reject: vendor libraries are allowed only through --allow-libraries. The binary policy refuses
// the imports of dlopen / dlsym.
#include <cuda_runtime.h>
#include <dlfcn.h>

typedef int (*create_fn)(void**);
typedef int (*sgemm_fn)(void*, int, int, int, int, int, const float*, const float*, int, const float*, int, const float*,
                        float*, int);

extern "C" void matrix_mul(const float* A, const float* B, float* C, int M, int N, int K) {
  static void* lib = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
  static void* lib12 = lib ? lib : dlopen("libcublas.so.12", RTLD_NOW | RTLD_LOCAL);
  static void* handle = nullptr;
  static sgemm_fn sgemm = nullptr;
  if (!handle && lib12) {
    auto create = reinterpret_cast<create_fn>(dlsym(lib12, "cublasCreate_v2"));
    sgemm = reinterpret_cast<sgemm_fn>(dlsym(lib12, "cublasSgemm_v2"));
    if (create) create(&handle);
  }
  if (!handle || !sgemm || M <= 0 || N <= 0) return;
  const float one = 1.0f, zero = 0.0f;
  sgemm(handle, 0 /* N */, 0 /* N */, N, M, K, &one, B, N, A, K, &zero, C, N);
  cudaDeviceSynchronize();
}
