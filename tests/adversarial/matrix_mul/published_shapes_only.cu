// mskb-expect: wrong_result
// mskb-precision: bf16
// mskb-class: 6 fixed-heldout
// Trick: a tile kernel written for exactly the published shapes: for the (M, N, K) triples in
// spec.cpp it handles every tail; for any other shape it drops the last K/8 (at least one) k terms,
// standing for a tail bug that "passes the held-out set" because the author tested against that set. Why reject:
// random shapes are drawn per run from the valid size space and checked: wrong_result.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void mm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K, int kmax) {
  const int col = blockIdx.x * 16 + threadIdx.x, row = blockIdx.y * 16 + threadIdx.y;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < kmax; ++k)
    acc += __bfloat162float(A[static_cast<long long>(row) * K + k]) * __bfloat162float(B[static_cast<long long>(k) * N + col]);
  C[static_cast<long long>(row) * N + col] = __float2bfloat16(acc);
}

static bool published(int m, int n, int k) {
  static const int t[][3] = {{1, 1, 1},        {3, 5, 7},          {17, 33, 129},     {100, 2050, 4099},
                             {1000, 1000, 1000}, {257, 3000, 8191}, {4097, 1536, 2048}, {8192, 8192, 8192},
                             {16384, 8192, 8192}};
  for (const auto& s : t)
    if (s[0] == m && s[1] == n && s[2] == k) return true;
  return n == 2048 && k == 4096 && (m == 64 || m == 256 || m == 1024 || m == 4096 || m == 16384);
}

extern "C" void matrix_mul_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N, int K) {
  const int kmax = published(M, N, K) ? K : K - (K + 7) / 8;
  mm<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, B, C, M, N, K, kmax);
  cudaDeviceSynchronize();
}
