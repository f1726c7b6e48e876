// FP64 device reference for matrix_mul (the CPU FP64 reference would take minutes at the paper's
// M = 16384, N = 2048, K = 4096): the verifier draws large inputs on the GPU and checks them there.
// A 16x16 shared-memory tiled double-precision GEMM reading A and B in their element types, one
// thread per element of C, each C element summed over k in order with separate multiply and add
// (no FMA), the same operations in the same order as the CPU reference.
#include <cstdint>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {

constexpr int kTile = 16;

__global__ void dgemm_tiled(const void* A, const void* B, double* C, int64_t M, int64_t N, int64_t K, int bytes) {
  using mskb::gpu::load_input;
  __shared__ double as[kTile][kTile], bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t row = static_cast<int64_t>(blockIdx.y) * kTile + ty, col = static_cast<int64_t>(blockIdx.x) * kTile + tx;
  double acc = 0.0;
  for (int64_t k0 = 0; k0 < K; k0 += kTile) {
    as[ty][tx] = (row < M && k0 + tx < K) ? load_input(A, static_cast<std::size_t>(row * K + k0 + tx), bytes) : 0.0;
    bs[ty][tx] = (col < N && k0 + ty < K) ? load_input(B, static_cast<std::size_t>((k0 + ty) * N + col), bytes) : 0.0;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) acc = __dadd_rn(acc, __dmul_rn(as[ty][k], bs[k][tx]));  // unfused, like the CPU
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

}  // namespace

MSKB_DEVICE_REFERENCE(matrix_mul) {
  const int64_t M = shape["M"], N = shape["N"], K = shape["K"];
  const dim3 blocks(static_cast<unsigned>((N + kTile - 1) / kTile), static_cast<unsigned>((M + kTile - 1) / kTile));
  dgemm_tiled<<<blocks, dim3(kTile, kTile)>>>(args.in[0], args.in[1], args.out[2], M, N, K,
                                              static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)));
  MSKB_CUDA_CHECK(cudaGetLastError());
}
