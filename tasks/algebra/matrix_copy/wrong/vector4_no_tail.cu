// mskb-expect: unwritten_output
// mskb-precision: fp32 bf16
// Shortcut: copies 4 elements per thread with vector loads/stores over floor(M*N/4) vectors, assuming
// M*N is a multiple of 4 (true for every paper shape, N = 2048). The last (M*N) % 4 elements are
// never written when it is not.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

template <class V>
__global__ void copy_vec4(const V* A, V* B, long long n4) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n4) B[i] = A[i];
}

template <class V>
void launch(const void* A, void* B, int M, int N) {
  const long long n4 = static_cast<long long>(M) * N / 4;
  const int threads = 256;
  long long blocks = (n4 + threads - 1) / threads;
  if (blocks < 1) blocks = 1;
  copy_vec4<<<static_cast<unsigned>(blocks), threads>>>(static_cast<const V*>(A), static_cast<V*>(B), n4);
  cudaDeviceSynchronize();
}

extern "C" void matrix_copy(float* A, float* B, int M, int N) { launch<float4>(A, B, M, N); }
extern "C" void matrix_copy_bf16(__nv_bfloat16* A, __nv_bfloat16* B, int M, int N) { launch<uint2>(A, B, M, N); }
