// mskb-expect: wrong_result
// mskb-precision: bf16
// Shortcut: keeps the intermediate powers in bf16 (what a chain of bf16 GEMMs does: every product is
// accumulated in FP32 but stored as bf16 before it feeds the next one). Harmless for P = 2 (no
// intermediate); from P = 5 on the compounded bf16 roundings are far outside the FP32-intermediate
// tolerance.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void matmul_bf16_out(const __nv_bfloat16* X, const __nv_bfloat16* Y, __nv_bfloat16* Z, int n) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n || col >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k)
    acc += __bfloat162float(X[static_cast<long long>(row) * n + k]) * __bfloat162float(Y[static_cast<long long>(k) * n + col]);
  Z[static_cast<long long>(row) * n + col] = __float2bfloat16(acc);
}

extern "C" void matrix_power_bf16(const __nv_bfloat16* A, __nv_bfloat16* B, int N, int P) {
  const size_t bytes = sizeof(__nv_bfloat16) * static_cast<size_t>(N) * static_cast<size_t>(N);
  const int m = P - 1;
  if (m <= 0) {
    cudaMemcpy(B, A, bytes, cudaMemcpyDeviceToDevice);
    return;
  }
  __nv_bfloat16* tmp = nullptr;
  cudaMalloc(&tmp, bytes);
  const __nv_bfloat16* cur = A;
  for (int s = 1; s <= m; ++s) {
    __nv_bfloat16* dst = (m - s) % 2 == 0 ? B : tmp;
    matmul_bf16_out<<<dim3((N + 15) / 16, (N + 15) / 16), dim3(16, 16)>>>(cur, A, dst, N);
    cur = dst;
  }
  cudaDeviceSynchronize();
  cudaFree(tmp);
}
