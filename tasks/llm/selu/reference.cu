// FP64 device reference for selu: the verifier draws large inputs on the GPU and checks them
// there. lambda * (v or alpha * expm1(v)), as on the CPU (CUDA's FP64 expm1 is within 1 ulp).
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
struct F {
  double alpha, lambda;
  __device__ double operator()(double v) const { return __dmul_rn(lambda, v > 0.0 ? v : __dmul_rn(alpha, expm1(v))); }
};
}  // namespace

MSKB_DEVICE_REFERENCE(selu) {
  (void)shape;
  mskb::gpu::map_elementwise(args.in[1], args.out[0], args.elements[1], static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)),
                             F{args.scalars[3], args.scalars[4]});
  MSKB_CUDA_CHECK(cudaGetLastError());
}
