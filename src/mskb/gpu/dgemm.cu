// The device references' FP64 GEMM (mskb/gpu/dgemm.cuh).
#include "mskb/gpu/dgemm.cuh"

#include <cstddef>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace mskb::gpu {

namespace {
constexpr int kThreads = 16, kPer = 4, kTile = kThreads * kPer, kDepth = 16;

__global__ void __launch_bounds__(kThreads* kThreads) dgemm_unfused_kernel(const void* A, const void* B, double* C, int64_t M, int64_t N,
                                                                          int64_t K, int bytes) {
  // as[k][r]: A's slice transposed (+1: no bank conflicts on the transposing stores).
  __shared__ double as[kDepth][kTile + 1], bs[kDepth][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * kThreads + tx;
  const int64_t row0 = static_cast<int64_t>(blockIdx.y) * kTile, col0 = static_cast<int64_t>(blockIdx.x) * kTile;
  double acc[kPer][kPer];
#pragma unroll
  for (int i = 0; i < kPer; ++i)
#pragma unroll
    for (int j = 0; j < kPer; ++j) acc[i][j] = 0.0;
  for (int64_t k0 = 0; k0 < K; k0 += kDepth) {
#pragma unroll
    for (int l = 0; l < kTile * kDepth / (kThreads * kThreads); ++l) {
      const int idx = t + l * kThreads * kThreads;
      const int ar = idx / kDepth, ak = idx % kDepth;  // A: 16 consecutive k of a row per 16 threads
      const int64_t gr = row0 + ar, gk = k0 + ak;
      as[ak][ar] = gr < M && gk < K ? load_input(A, static_cast<std::size_t>(gr * K + gk), bytes) : 0.0;
      const int bk = idx / kTile, bc = idx % kTile;  // B: 64 consecutive columns of a row
      const int64_t hk = k0 + bk, hc = col0 + bc;
      bs[bk][bc] = hk < K && hc < N ? load_input(B, static_cast<std::size_t>(hk * N + hc), bytes) : 0.0;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kDepth; ++k) {
      double a[kPer], b[kPer];
#pragma unroll
      for (int i = 0; i < kPer; ++i) a[i] = as[k][ty + kThreads * i];
#pragma unroll
      for (int j = 0; j < kPer; ++j) b[j] = bs[k][tx + kThreads * j];
#pragma unroll
      for (int i = 0; i < kPer; ++i)
#pragma unroll
        for (int j = 0; j < kPer; ++j) acc[i][j] = __dadd_rn(acc[i][j], __dmul_rn(a[i], b[j]));  // unfused, like the CPU
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kPer; ++i)
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      const int64_t r = row0 + ty + kThreads * i, c = col0 + tx + kThreads * j;
      if (r < M && c < N) C[r * N + c] = acc[i][j];
    }
}

}  // namespace

void dgemm_unfused(const void* A, const void* B, double* C, int64_t M, int64_t N, int64_t K, int bytes) {
  if (M <= 0 || N <= 0) return;
  const dim3 blocks(static_cast<unsigned>((N + kTile - 1) / kTile), static_cast<unsigned>((M + kTile - 1) / kTile));
  dgemm_unfused_kernel<<<blocks, dim3(kThreads, kThreads)>>>(A, B, C, M, N, K, bytes);
  MSKB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace mskb::gpu
