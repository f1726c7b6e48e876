// FP64 device reference for SwiGLU: the verifier draws large inputs on the GPU and checks them
// there. y = g / (1 + exp(-beta * g)) * v, the CPU reference's operations in its order (CUDA's FP64
// exp is within 1 ulp).
#include <cstddef>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
__global__ void swiglu_fp64(const void* gate, const void* value, double* y, double beta, std::size_t n, int bytes) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const double g = mskb::gpu::load_input(gate, i, bytes), v = mskb::gpu::load_input(value, i, bytes);
    y[i] = __dmul_rn(__ddiv_rn(g, __dadd_rn(1.0, exp(__dmul_rn(-beta, g)))), v);
  }
}
}  // namespace

MSKB_DEVICE_REFERENCE(SwiGLU) {
  (void)shape;
  swiglu_fp64<<<4096, 256>>>(args.in[1], args.in[2], args.out[0], args.scalars[3], args.elements[0],
                             static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)));
  MSKB_CUDA_CHECK(cudaGetLastError());
}
