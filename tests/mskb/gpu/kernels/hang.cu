// Bad input: a kernel that never terminates -> timeout (the watchdog kills the runner).
#include <cuda_runtime.h>
__global__ void spin(volatile int* flag) {
  while (*flag == 0) {
  }
}
extern "C" void vector_add(const float* A, const float* B, float* C, int N) {
  (void)A; (void)B; (void)N;
  cudaMemset(C, 0, sizeof(int));
  spin<<<1, 1>>>(reinterpret_cast<volatile int*>(C));
  cudaDeviceSynchronize();
}
