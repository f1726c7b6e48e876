// FP64 device reference for matrix_transpose: the verifier draws large inputs on the GPU and
// checks them there (B[j*M + i] = A[i*N + j], exactly). 32 x 32 tiles through shared memory.
#include <cstdint>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
constexpr int kTile = 32;
__global__ void transpose_to_fp64(const void* A, double* B, int64_t M, int64_t N, int bytes) {
  __shared__ double tile[kTile][kTile + 1];
  const int64_t i0 = static_cast<int64_t>(blockIdx.y) * kTile, j0 = static_cast<int64_t>(blockIdx.x) * kTile;
  for (int r = threadIdx.y; r < kTile; r += blockDim.y) {
    const int64_t i = i0 + r, j = j0 + threadIdx.x;
    if (i < M && j < N) tile[r][threadIdx.x] = mskb::gpu::load_input(A, static_cast<std::size_t>(i * N + j), bytes);
  }
  __syncthreads();
  for (int r = threadIdx.y; r < kTile; r += blockDim.y) {
    const int64_t j = j0 + r, i = i0 + threadIdx.x;
    if (i < M && j < N) B[j * M + i] = tile[threadIdx.x][r];
  }
}
}  // namespace

MSKB_DEVICE_REFERENCE(matrix_transpose) {
  const int64_t M = shape["M"], N = shape["N"];
  const dim3 blocks(static_cast<unsigned>((N + kTile - 1) / kTile), static_cast<unsigned>((M + kTile - 1) / kTile));
  transpose_to_fp64<<<blocks, dim3(kTile, 8)>>>(args.in[0], args.out[1], M, N,
                                                static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)));
  MSKB_CUDA_CHECK(cudaGetLastError());
}
