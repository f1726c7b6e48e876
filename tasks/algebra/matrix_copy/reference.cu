// FP64 device reference for matrix_copy: the verifier draws large inputs on the GPU and checks
// them there (B = A, exactly).
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
__global__ void copy_to_fp64(const void* A, double* B, std::size_t n, int bytes) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    B[i] = mskb::gpu::load_input(A, i, bytes);
}
}  // namespace

MSKB_DEVICE_REFERENCE(matrix_copy) {
  (void)shape;
  const std::size_t n = args.elements[0];
  copy_to_fp64<<<4096, 256>>>(args.in[0], args.out[1], n, static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)));
  MSKB_CUDA_CHECK(cudaGetLastError());
}
