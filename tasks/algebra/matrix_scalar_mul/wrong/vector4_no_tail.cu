// mskb-expect: unwritten_output
// mskb-precision: fp32
// Shortcut: float4 loads/stores over floor(M*N/4) vectors, assuming M*N is a multiple of 4 (true for every
// paper shape, N = 2048). The last (M*N) % 4 elements are never written when it is not.
#include <cuda_runtime.h>

__global__ void scale_vec4(const float4* A, float4* B, float s, long long n4) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n4) {
    const float4 v = A[i];
    B[i] = make_float4(s * v.x, s * v.y, s * v.z, s * v.w);
  }
}

extern "C" void matrix_scalar_mul(const float* A, float* B, float scalar, int M, int N) {
  const long long n4 = static_cast<long long>(M) * N / 4;
  const int threads = 256;
  long long blocks = (n4 + threads - 1) / threads;
  if (blocks < 1) blocks = 1;
  scale_vec4<<<static_cast<unsigned>(blocks), threads>>>(reinterpret_cast<const float4*>(A), reinterpret_cast<float4*>(B), scalar, n4);
  cudaDeviceSynchronize();
}
