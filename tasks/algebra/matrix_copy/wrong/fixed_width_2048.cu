// mskb-expect: unwritten_output
// mskb-precision: fp32 bf16
// Shortcut: the grid is hard-coded for the paper's width, M x 2048 threads (one per (row, column<2048)),
// with a column bounds check. Correct whenever N <= 2048 (every paper shape); for wider matrices the
// columns from 2048 on are never written.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

constexpr int kCols = 2048;

template <class T>
__global__ void copy_fixed_width(const T* A, T* B, int M, int N) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long r = t / kCols, c = t % kCols;
  if (r < M && c < N) B[r * N + c] = A[r * N + c];
}

template <class T>
void launch(const T* A, T* B, int M, int N) {
  const long long total = static_cast<long long>(M) * kCols;
  const int threads = 256;
  copy_fixed_width<<<static_cast<unsigned>((total + threads - 1) / threads), threads>>>(A, B, M, N);
  cudaDeviceSynchronize();
}

extern "C" void matrix_copy(float* A, float* B, int M, int N) { launch(A, B, M, N); }
extern "C" void matrix_copy_bf16(__nv_bfloat16* A, __nv_bfloat16* B, int M, int N) { launch(A, B, M, N); }
