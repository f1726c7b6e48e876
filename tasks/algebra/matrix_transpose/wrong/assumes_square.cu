// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: assumes a square matrix and uses M as the row stride of A (A[i*M + j] instead of A[i*N + j]),
// with a bounds check on the flattened index so it stays memory safe. Correct whenever M == N (the paper
// sweep starts with 1024 x 1024); wrong as soon as the matrix is rectangular.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

template <class T>
__global__ void transpose_square(const T* A, T* B, int M, int N) {
  const long long total = static_cast<long long>(M) * N;
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx < total) {
    const long long j = idx / M, i = idx % M;
    const long long src = i * M + j;
    B[idx] = src < total ? A[src] : T(0.0f);
  }
}

template <class T>
void launch(const T* A, T* B, int M, int N) {
  const long long total = static_cast<long long>(M) * N;
  const int threads = 256;
  transpose_square<<<static_cast<unsigned>((total + threads - 1) / threads), threads>>>(A, B, M, N);
  cudaDeviceSynchronize();
}

extern "C" void matrix_transpose(const float* A, float* B, int M, int N) { launch(A, B, M, N); }
extern "C" void matrix_transpose_bf16(const __nv_bfloat16* A, __nv_bfloat16* B, int M, int N) { launch(A, B, M, N); }
