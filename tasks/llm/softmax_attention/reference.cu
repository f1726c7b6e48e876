// FP64 GPU reference for softmax_attention (the CPU FP64 reference would take minutes at the paper's
// (1024, 2048, 4096, 4096)). The same operations in the same order as the CPU reference in spec.cpp:
// S = Q K^T with every dot product summed over k in order (separate multiply and add, no FMA), then
// scaled; one thread per row takes the max, replaces S by e = exp(s - max) and sums e over j in order;
// Y = (sum_j e[i][j] V[j][d], summed over j in order) / sum. 16x16 shared-memory tiles.
#include <cmath>
#include <cstddef>
#include <vector>

#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {

constexpr int kTile = 16;

// C[i][j] = scale * sum_k A[i][k] * B[j][k]   (A: M x K, B: N x K, both row-major).
__global__ void dgemm_abt(const double* A, const double* B, double* C, int M, int N, int K, double scale) {
  __shared__ double as[kTile][kTile], bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  const int brow = blockIdx.x * kTile + ty;  // the B row this thread loads
  double acc = 0.0;
  for (int k0 = 0; k0 < K; k0 += kTile) {
    as[ty][tx] = (row < M && k0 + tx < K) ? A[static_cast<long long>(row) * K + k0 + tx] : 0.0;
    bs[ty][tx] = (brow < N && k0 + tx < K) ? B[static_cast<long long>(brow) * K + k0 + tx] : 0.0;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) acc = __dadd_rn(acc, __dmul_rn(as[ty][k], bs[tx][k]));
    __syncthreads();
  }
  if (row < M && col < N) C[static_cast<long long>(row) * N + col] = __dmul_rn(acc, scale);
}

// One thread per row: S[i][:] <- exp(S[i][:] - max), sum[i] = sum over j in order.
__global__ void row_exp(double* S, double* sum, int M, int N) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M) return;
  double* s = S + static_cast<long long>(i) * N;
  double m = -HUGE_VAL;
  for (int j = 0; j < N; ++j) m = fmax(m, s[j]);
  double acc = 0.0;
  for (int j = 0; j < N; ++j) {
    const double e = exp(__dadd_rn(s[j], -m));
    s[j] = e;
    acc = __dadd_rn(acc, e);
  }
  sum[i] = acc;
}

// Y[i][d] = (sum_j E[i][j] * V[j][d]) / sum[i]   (E: M x N, V: N x D).
__global__ void dgemm_ev(const double* E, const double* V, const double* sum, double* Y, int M, int D, int N) {
  __shared__ double es[kTile][kTile], vs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  double acc = 0.0;
  for (int j0 = 0; j0 < N; j0 += kTile) {
    es[ty][tx] = (row < M && j0 + tx < N) ? E[static_cast<long long>(row) * N + j0 + tx] : 0.0;
    vs[ty][tx] = (col < D && j0 + ty < N) ? V[static_cast<long long>(j0 + ty) * D + col] : 0.0;
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kTile; ++j) acc = __dadd_rn(acc, __dmul_rn(es[ty][j], vs[j][tx]));
    __syncthreads();
  }
  if (row < M && col < D) Y[static_cast<long long>(row) * D + col] = __ddiv_rn(acc, sum[row]);
}

}  // namespace

MSKB_GPU_REFERENCE(softmax_attention) {
  (void)precision;
  const int q = static_cast<int>(shape["q"]), kv = static_cast<int>(shape["kv"]), dqk = static_cast<int>(shape["dqk"]),
            dv = static_cast<int>(shape["dv"]);
  const std::size_t nq = static_cast<std::size_t>(q) * dqk, nk = static_cast<std::size_t>(kv) * dqk,
                    nv = static_cast<std::size_t>(kv) * dv, ns = static_cast<std::size_t>(q) * kv,
                    ny = static_cast<std::size_t>(q) * dv;
  mskb::gpu::DeviceMemory dQ(nq * sizeof(double)), dK(nk * sizeof(double)), dV(nv * sizeof(double)), dS(ns * sizeof(double)),
      dSum(static_cast<std::size_t>(q) * sizeof(double)), dY(ny * sizeof(double));
  MSKB_CUDA_CHECK(cudaMemcpy(dQ.get(), args[1].data.data(), nq * sizeof(double), cudaMemcpyHostToDevice));
  MSKB_CUDA_CHECK(cudaMemcpy(dK.get(), args[2].data.data(), nk * sizeof(double), cudaMemcpyHostToDevice));
  MSKB_CUDA_CHECK(cudaMemcpy(dV.get(), args[3].data.data(), nv * sizeof(double), cudaMemcpyHostToDevice));
  const double scale = 1.0 / std::sqrt(static_cast<double>(dqk));
  double* S = static_cast<double*>(dS.get());
  double* sum = static_cast<double*>(dSum.get());
  const dim3 tile(kTile, kTile);
  dgemm_abt<<<dim3(static_cast<unsigned>((kv + kTile - 1) / kTile), static_cast<unsigned>((q + kTile - 1) / kTile)), tile>>>(
      static_cast<const double*>(dQ.get()), static_cast<const double*>(dK.get()), S, q, kv, dqk, scale);
  MSKB_CUDA_CHECK(cudaGetLastError());
  row_exp<<<static_cast<unsigned>((q + 127) / 128), 128>>>(S, sum, q, kv);
  MSKB_CUDA_CHECK(cudaGetLastError());
  dgemm_ev<<<dim3(static_cast<unsigned>((dv + kTile - 1) / kTile), static_cast<unsigned>((q + kTile - 1) / kTile)), tile>>>(
      S, static_cast<const double*>(dV.get()), sum, static_cast<double*>(dY.get()), q, dv, kv);
  MSKB_CUDA_CHECK(cudaGetLastError());
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());
  args[0].data.resize(ny);
  MSKB_CUDA_CHECK(cudaMemcpy(args[0].data.data(), dY.get(), ny * sizeof(double), cudaMemcpyDeviceToHost));
}
