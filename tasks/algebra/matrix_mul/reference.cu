// FP64 GPU reference for matrix_mul (the CPU FP64 reference would take minutes at the paper's
// M = 16384, N = 2048, K = 4096). A 16x16 shared-memory tiled double-precision GEMM, one thread
// per element of C, each C element summed over k in order with separate multiply and add (no FMA),
// the same operations in the same order as the CPU reference.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {

constexpr int kTile = 16;

__global__ void dgemm_tiled(const double* A, const double* B, double* C, int M, int N, int K) {
  __shared__ double as[kTile][kTile], bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  double acc = 0.0;
  for (int k0 = 0; k0 < K; k0 += kTile) {
    as[ty][tx] = (row < M && k0 + tx < K) ? A[static_cast<long long>(row) * K + k0 + tx] : 0.0;
    bs[ty][tx] = (col < N && k0 + ty < K) ? B[static_cast<long long>(k0 + ty) * N + col] : 0.0;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) acc = __dadd_rn(acc, __dmul_rn(as[ty][k], bs[k][tx]));  // unfused, like the CPU
    __syncthreads();
  }
  if (row < M && col < N) C[static_cast<long long>(row) * N + col] = acc;
}

}  // namespace

MSKB_GPU_REFERENCE(matrix_mul) {
  (void)precision;
  const int M = static_cast<int>(shape["M"]), N = static_cast<int>(shape["N"]), K = static_cast<int>(shape["K"]);
  const std::size_t na = static_cast<std::size_t>(M) * K, nb = static_cast<std::size_t>(K) * N, nc = static_cast<std::size_t>(M) * N;
  mskb::gpu::DeviceMemory dA(na * sizeof(double)), dB(nb * sizeof(double)), dC(nc * sizeof(double));
  MSKB_CUDA_CHECK(cudaMemcpy(dA.get(), args[0].data.data(), na * sizeof(double), cudaMemcpyHostToDevice));
  MSKB_CUDA_CHECK(cudaMemcpy(dB.get(), args[1].data.data(), nb * sizeof(double), cudaMemcpyHostToDevice));
  const dim3 blocks(static_cast<unsigned>((N + kTile - 1) / kTile), static_cast<unsigned>((M + kTile - 1) / kTile));
  dgemm_tiled<<<blocks, dim3(kTile, kTile)>>>(static_cast<const double*>(dA.get()), static_cast<const double*>(dB.get()),
                                               static_cast<double*>(dC.get()), M, N, K);
  MSKB_CUDA_CHECK(cudaGetLastError());
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());
  args[2].data.resize(nc);
  MSKB_CUDA_CHECK(cudaMemcpy(args[2].data.data(), dC.get(), nc * sizeof(double), cudaMemcpyDeviceToHost));
}
