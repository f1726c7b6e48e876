// Bad input: dereferences a null host pointer inside the entry point -> crashed (SIGSEGV).
#include <cuda_runtime.h>
extern "C" void vector_add(const float* A, const float* B, float* C, int N) {
  volatile int* p = nullptr;
  *p = N;
  (void)A; (void)B; (void)C;
}
