// FP64 device reference for matrix_vector_mul: the verifier draws large inputs on the GPU and
// checks them there. One thread per row, the row's products summed in order with separate
// multiply and add (no FMA): the CPU reference's operations in its order.
#include <cstdint>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
__global__ void gemv_fp64(const void* A, const void* x, double* y, int64_t M, int64_t N, int bytes) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= M) return;
  double acc = 0.0;
  for (int64_t j = 0; j < N; ++j)
    acc = __dadd_rn(acc, __dmul_rn(mskb::gpu::load_input(A, static_cast<std::size_t>(i * N + j), bytes),
                                   mskb::gpu::load_input(x, static_cast<std::size_t>(j), bytes)));
  y[i] = acc;
}
}  // namespace

MSKB_DEVICE_REFERENCE(matrix_vector_mul) {
  const int64_t M = shape["M"], N = shape["N"];
  gemv_fp64<<<static_cast<unsigned>((M + 127) / 128), 128>>>(args.in[0], args.in[1], args.out[2], M, N,
                                                             static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)));
  MSKB_CUDA_CHECK(cudaGetLastError());
}
