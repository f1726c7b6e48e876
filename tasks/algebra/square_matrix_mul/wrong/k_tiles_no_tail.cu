// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: a 16x16 shared-memory tiled GEMM whose k loop runs over M / 16 whole tiles, assuming M is a
// multiple of 16 (every paper M is). Rows and columns are bounds-checked, so it is memory safe and
// writes every element, but for other M the last M % 16 terms of every dot product are dropped.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ void store(float* p, float v) { *p = v; }
__device__ __forceinline__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

template <class T>
__global__ void smm_tiled(const T* A, const T* B, T* C, int M) {
  __shared__ float as[16][16], bs[16][16];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 + 16 <= M; k0 += 16) {
    as[ty][tx] = row < M ? to_f(A[static_cast<long long>(row) * M + k0 + tx]) : 0.0f;
    bs[ty][tx] = col < M ? to_f(B[static_cast<long long>(k0 + ty) * M + col]) : 0.0f;
    __syncthreads();
    for (int k = 0; k < 16; ++k) acc += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < M) store(C + static_cast<long long>(row) * M + col, acc);
}

template <class T>
void launch(const T* A, const T* B, T* C, int M) {
  const dim3 blocks((M + 15) / 16, (M + 15) / 16);
  smm_tiled<<<blocks, dim3(16, 16)>>>(A, B, C, M);
  cudaDeviceSynchronize();
}

extern "C" void square_matrix_mul(float* A, float* B, float* C, int M) { launch(A, B, C, M); }
extern "C" void square_matrix_mul_bf16(__nv_bfloat16* A, __nv_bfloat16* B, __nv_bfloat16* C, int M) { launch(A, B, C, M); }
