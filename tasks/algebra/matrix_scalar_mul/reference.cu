// FP64 device reference for matrix_scalar_mul: the verifier draws large inputs on the GPU and
// checks them there (B = scalar * A, one FP64 product per element, as on the CPU).
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
__global__ void scale_to_fp64(const void* A, double* B, double scalar, std::size_t n, int bytes) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    B[i] = __dmul_rn(scalar, mskb::gpu::load_input(A, i, bytes));
}
}  // namespace

MSKB_DEVICE_REFERENCE(matrix_scalar_mul) {
  (void)shape;
  const std::size_t n = args.elements[0];
  scale_to_fp64<<<4096, 256>>>(args.in[0], args.out[1], args.scalars[2], n,
                               static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)));
  MSKB_CUDA_CHECK(cudaGetLastError());
}
