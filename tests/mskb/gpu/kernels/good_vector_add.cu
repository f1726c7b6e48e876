// A correct, vectorised vector_add used to check that evaluation continues after bad inputs.
#include <cuda_runtime.h>
__global__ void add4(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, long long N) {
  const long long i = (blockIdx.x * 256ll + threadIdx.x) * 4;
  if (i + 3 < N) {
    const float4 a = *reinterpret_cast<const float4*>(A + i), b = *reinterpret_cast<const float4*>(B + i);
    *reinterpret_cast<float4*>(C + i) = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
  } else {
    for (long long j = i; j < N; ++j) C[j] = A[j] + B[j];
  }
}
extern "C" void vector_add(const float* A, const float* B, float* C, int N) {
  const long long groups = (N + 3) / 4;
  add4<<<static_cast<unsigned>((groups + 255) / 256), 256>>>(A, B, C, N);
  cudaDeviceSynchronize();
}
