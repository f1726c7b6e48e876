// mskb-expect: unwritten_output
// mskb-precision: fp32 bf16
// Shortcut: a 16x16 shared-memory tiled GEMM whose grid is (N / 16) x (M / 16), i.e. it assumes M and N
// are multiples of the tile (every paper shape is). K tails are handled, so every paper shape passes;
// on held-out shapes the last M % 16 rows and N % 16 columns of C are never written.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ void store(float* p, float v) { *p = v; }
__device__ __forceinline__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

template <class T>
__global__ void mm_tiled(const T* A, const T* B, T* C, int M, int N, int K) {
  __shared__ float as[16][16], bs[16][16];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += 16) {
    as[ty][tx] = (k0 + tx < K) ? to_f(A[static_cast<long long>(row) * K + k0 + tx]) : 0.0f;
    bs[ty][tx] = (k0 + ty < K) ? to_f(B[static_cast<long long>(k0 + ty) * N + col]) : 0.0f;
    __syncthreads();
    for (int k = 0; k < 16; ++k) acc += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  store(C + static_cast<long long>(row) * N + col, acc);
}

template <class T>
void run(const T* A, const T* B, T* C, int M, int N, int K) {
  const dim3 blocks(N / 16, M / 16);
  if (blocks.x > 0 && blocks.y > 0) mm_tiled<T><<<blocks, dim3(16, 16)>>>(A, B, C, M, N, K);
  cudaDeviceSynchronize();
}

extern "C" void matrix_mul(const float* A, const float* B, float* C, int M, int N, int K) { run(A, B, C, M, N, K); }
extern "C" void matrix_mul_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K) {
  run(A, B, C, M, N, K);
}
