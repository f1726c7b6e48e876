// FP64 device reference for elu: the verifier draws large inputs on the GPU and checks them
// there. alpha * expm1(v) below 0, as on the CPU (CUDA's FP64 expm1 is within 1 ulp).
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
struct F {
  double alpha;
  __device__ double operator()(double v) const { return v > 0.0 ? v : __dmul_rn(alpha, expm1(v)); }
};
}  // namespace

MSKB_DEVICE_REFERENCE(elu) {
  (void)shape;
  mskb::gpu::map_elementwise(args.in[1], args.out[0], args.elements[1], static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)),
                             F{args.scalars[3]});
  MSKB_CUDA_CHECK(cudaGetLastError());
}
