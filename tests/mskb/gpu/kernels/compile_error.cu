// Bad input: does not compile -> compile_error with file:line.
#include <cuda_runtime.h>
extern "C" void vector_add(const float* A, const float* B, float* C, int N) {
  C[0] = A[0] + B[0] + undeclared_identifier;
}
