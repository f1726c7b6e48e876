// FP64 device reference for sigmoid: the verifier draws large inputs on the GPU and checks them
// there. 1 / (1 + exp(-v)), as on the CPU (CUDA's FP64 exp is within 1 ulp).
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
struct F {
  __device__ double operator()(double v) const { return __ddiv_rn(1.0, __dadd_rn(1.0, exp(-v))); }
};
}  // namespace

MSKB_DEVICE_REFERENCE(sigmoid) {
  (void)shape;
  mskb::gpu::map_elementwise(args.in[1], args.out[0], args.elements[1], static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)),
                             F{});
  MSKB_CUDA_CHECK(cudaGetLastError());
}
