// FP64 GPU reference for matrix_power (the CPU FP64 reference would take minutes at N = 1024, P = 16
// and beyond): binary exponentiation with the same 16x16 shared-memory tiled double-precision GEMM as
// matrix_mul's reference (one thread per element, each element summed over k in order).
#include <cstddef>
#include <utility>

#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {

constexpr int kTile = 16;

// C = X * Y, n x n row-major.
__global__ void dgemm_power_tiled(const double* X, const double* Y, double* C, int n) {
  __shared__ double xs[kTile][kTile], ys[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  double acc = 0.0;
  for (int k0 = 0; k0 < n; k0 += kTile) {
    xs[ty][tx] = (row < n && k0 + tx < n) ? X[static_cast<long long>(row) * n + k0 + tx] : 0.0;
    ys[ty][tx] = (col < n && k0 + ty < n) ? Y[static_cast<long long>(k0 + ty) * n + col] : 0.0;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) acc = fma(xs[ty][k], ys[k][tx], acc);
    __syncthreads();
  }
  if (row < n && col < n) C[static_cast<long long>(row) * n + col] = acc;
}

void gemm(const double* X, const double* Y, double* C, int n) {
  const unsigned tiles = static_cast<unsigned>((n + kTile - 1) / kTile);
  dgemm_power_tiled<<<dim3(tiles, tiles), dim3(kTile, kTile)>>>(X, Y, C, n);
  MSKB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

MSKB_GPU_REFERENCE(matrix_power) {
  (void)precision;
  const int n = static_cast<int>(shape["N"]);
  long long e = shape["P"];
  const std::size_t bytes = static_cast<std::size_t>(n) * static_cast<std::size_t>(n) * sizeof(double);
  // base and result each ping-pong between two buffers, so a product never overwrites its own input.
  mskb::gpu::DeviceMemory b0(bytes), b1(bytes), r0(bytes), r1(bytes);
  double* base[2] = {static_cast<double*>(b0.get()), static_cast<double*>(b1.get())};
  double* res[2] = {static_cast<double*>(r0.get()), static_cast<double*>(r1.get())};
  int bi = 0, ri = 0;
  bool have = false;
  MSKB_CUDA_CHECK(cudaMemcpy(base[0], args[0].data.data(), bytes, cudaMemcpyHostToDevice));
  while (e > 0) {
    if (e & 1) {
      if (!have) {
        MSKB_CUDA_CHECK(cudaMemcpy(res[ri], base[bi], bytes, cudaMemcpyDeviceToDevice));
        have = true;
      } else {
        gemm(res[ri], base[bi], res[ri ^ 1], n);
        ri ^= 1;
      }
    }
    e >>= 1;
    if (e > 0) {
      gemm(base[bi], base[bi], base[bi ^ 1], n);
      bi ^= 1;
    }
  }
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());
  args[1].data.resize(bytes / sizeof(double));
  MSKB_CUDA_CHECK(cudaMemcpy(args[1].data.data(), res[ri], bytes, cudaMemcpyDeviceToHost));
}
