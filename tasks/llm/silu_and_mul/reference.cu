// FP64 device reference for silu_and_mul: the verifier draws large inputs on the GPU and checks them
// there. out[b, j] = g / (1 + exp(-g)) * v with g = in[b, j], v = in[b, D + j], the CPU reference's
// operations in its order (CUDA's FP64 exp is within 1 ulp).
#include <cstddef>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
__global__ void silu_and_mul_fp64(const void* in, double* out, std::size_t n, std::size_t d, int bytes) {
  for (std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; k < n; k += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t b = k / d, j = k % d;
    const double g = mskb::gpu::load_input(in, b * 2 * d + j, bytes), v = mskb::gpu::load_input(in, b * 2 * d + d + j, bytes);
    out[k] = __dmul_rn(__ddiv_rn(g, __dadd_rn(1.0, exp(-g))), v);
  }
}
}  // namespace

MSKB_DEVICE_REFERENCE(silu_and_mul) {
  (void)shape;
  const std::size_t n = args.elements[1], d = static_cast<std::size_t>(args.scalars[3]);
  if (n == 0 || d == 0) return;
  silu_and_mul_fp64<<<4096, 256>>>(args.in[0], args.out[1], n, d, static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)));
  MSKB_CUDA_CHECK(cudaGetLastError());
}
