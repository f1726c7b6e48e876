// Bad input: writes through a wild device pointer -> launch_error (illegal address, sticky).
#include <cuda_runtime.h>
__global__ void wild(float* c) { c[threadIdx.x + (1ll << 40)] = 1.0f; }
extern "C" void vector_add(const float* A, const float* B, float* C, int N) {
  (void)A; (void)B; (void)N;
  wild<<<1, 32>>>(C);
  cudaDeviceSynchronize();
}
