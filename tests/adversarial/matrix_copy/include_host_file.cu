// mskb-expect: compile_error
// mskb-precision: fp32
// mskb-class: 2 runtime-policy
// Trick: includes a host file at build time through a macro (`#include HOST_FILE`), which a text
// screen of the source does not see: unconfined, the preprocessor reads /etc/passwd and its
// lines come back in the compiler's errors, which end up in a report or an LLM's prompt.
// Why reject: the build of an untrusted kernel may read only the toolkit's and the system's
// include and library folders, its own folder and kernels/include. Under Landlock the include
// fails with "Permission denied" (nothing of the file is read), and the build's one-line error
// says the build may not read it: compile_error.
#include <cuda_runtime.h>

#define HOST_FILE_PATH(x) #x
#define HOST_FILE HOST_FILE_PATH(/etc/passwd)

__global__ void copy(const float* a, float* b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i];
}

extern "C" void matrix_copy(float* A, float* B, int M, int N) { copy<<<(M * N + 255) / 256, 256>>>(A, B, M * N); }

#include HOST_FILE
