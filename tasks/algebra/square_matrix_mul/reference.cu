// FP64 device reference for square_matrix_mul (the CPU FP64 reference would take minutes at M = 4096
// and beyond): the verifier draws large inputs on the GPU and checks them there. The same 16x16
// shared-memory tiled double-precision GEMM as matrix_mul's, reading A and B in their element types:
// one thread per element of C, each element summed over k in order with separate multiply and add
// (no FMA), the CPU reference's operations in its order.
#include <cstdint>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {

constexpr int kTile = 16;

__global__ void dgemm_square_tiled(const void* A, const void* B, double* C, int64_t M, int bytes) {
  using mskb::gpu::load_input;
  __shared__ double as[kTile][kTile], bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t row = static_cast<int64_t>(blockIdx.y) * kTile + ty, col = static_cast<int64_t>(blockIdx.x) * kTile + tx;
  double acc = 0.0;
  for (int64_t k0 = 0; k0 < M; k0 += kTile) {
    as[ty][tx] = (row < M && k0 + tx < M) ? load_input(A, static_cast<std::size_t>(row * M + k0 + tx), bytes) : 0.0;
    bs[ty][tx] = (col < M && k0 + ty < M) ? load_input(B, static_cast<std::size_t>((k0 + ty) * M + col), bytes) : 0.0;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) acc = __dadd_rn(acc, __dmul_rn(as[ty][k], bs[k][tx]));  // unfused, like the CPU
    __syncthreads();
  }
  if (row < M && col < M) C[row * M + col] = acc;
}

}  // namespace

MSKB_DEVICE_REFERENCE(square_matrix_mul) {
  const int64_t M = shape["M"];
  const unsigned tiles = static_cast<unsigned>((M + kTile - 1) / kTile);
  dgemm_square_tiled<<<dim3(tiles, tiles), dim3(kTile, kTile)>>>(args.in[0], args.in[1], args.out[2], M,
                                                                 static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)));
  MSKB_CUDA_CHECK(cudaGetLastError());
}
