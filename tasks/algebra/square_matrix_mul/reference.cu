// FP64 GPU reference for square_matrix_mul (the CPU FP64 reference would take minutes at M = 4096 and
// beyond). The same 16x16 shared-memory tiled double-precision GEMM as matrix_mul's: one thread per
// element of C, each element summed over k in order.
#include <cstddef>

#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {

constexpr int kTile = 16;

__global__ void dgemm_square_tiled(const double* A, const double* B, double* C, int M) {
  __shared__ double as[kTile][kTile], bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  double acc = 0.0;
  for (int k0 = 0; k0 < M; k0 += kTile) {
    as[ty][tx] = (row < M && k0 + tx < M) ? A[static_cast<long long>(row) * M + k0 + tx] : 0.0;
    bs[ty][tx] = (col < M && k0 + ty < M) ? B[static_cast<long long>(k0 + ty) * M + col] : 0.0;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) acc = fma(as[ty][k], bs[k][tx], acc);
    __syncthreads();
  }
  if (row < M && col < M) C[static_cast<long long>(row) * M + col] = acc;
}

}  // namespace

MSKB_GPU_REFERENCE(square_matrix_mul) {
  (void)precision;
  const int M = static_cast<int>(shape["M"]);
  const std::size_t n = static_cast<std::size_t>(M) * static_cast<std::size_t>(M);
  mskb::gpu::DeviceMemory dA(n * sizeof(double)), dB(n * sizeof(double)), dC(n * sizeof(double));
  MSKB_CUDA_CHECK(cudaMemcpy(dA.get(), args[0].data.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  MSKB_CUDA_CHECK(cudaMemcpy(dB.get(), args[1].data.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  const unsigned tiles = static_cast<unsigned>((M + kTile - 1) / kTile);
  dgemm_square_tiled<<<dim3(tiles, tiles), dim3(kTile, kTile)>>>(static_cast<const double*>(dA.get()),
                                                                 static_cast<const double*>(dB.get()), static_cast<double*>(dC.get()), M);
  MSKB_CUDA_CHECK(cudaGetLastError());
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());
  args[2].data.resize(n);
  MSKB_CUDA_CHECK(cudaMemcpy(args[2].data.data(), dC.get(), n * sizeof(double), cudaMemcpyDeviceToHost));
}
