// FP64 device reference for vector_add: the verifier draws large inputs on the GPU and checks
// them there (C = A + B, one FP64 addition per element, as on the CPU).
#include <cstddef>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
__global__ void add_fp64(const void* A, const void* B, double* C, std::size_t n, int bytes) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    C[i] = __dadd_rn(mskb::gpu::load_input(A, i, bytes), mskb::gpu::load_input(B, i, bytes));
}
}  // namespace

MSKB_DEVICE_REFERENCE(vector_add) {
  (void)shape;
  add_fp64<<<4096, 256>>>(args.in[0], args.in[1], args.out[2], args.elements[2],
                          static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)));
  MSKB_CUDA_CHECK(cudaGetLastError());
}
