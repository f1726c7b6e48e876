// FP64 device reference for gelu: the verifier draws large inputs on the GPU and checks them
// there. 0.5 * v * erfc(-v / sqrt(2)), the CPU's products in its order (CUDA's FP64 erfc is within 5 ulp).
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
struct F {
  __device__ double operator()(double v) const { return __dmul_rn(__dmul_rn(0.5, v), erfc(__dmul_rn(-v, 0.70710678118654752440))); }
};
}  // namespace

MSKB_DEVICE_REFERENCE(gelu) {
  (void)shape;
  mskb::gpu::map_elementwise(args.in[1], args.out[0], args.elements[1], static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)),
                             F{});
  MSKB_CUDA_CHECK(cudaGetLastError());
}
