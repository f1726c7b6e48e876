// FP64 device reference for RELU: the verifier draws large inputs on the GPU and checks them
// there. The CPU reference's max(v, 0): exact.
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
struct F {
  __device__ double operator()(double v) const { return v > 0.0 ? v : 0.0; }
};
}  // namespace

MSKB_DEVICE_REFERENCE(RELU) {
  (void)shape;
  mskb::gpu::map_elementwise(args.in[1], args.out[0], args.elements[1], static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)),
                             F{});
  MSKB_CUDA_CHECK(cudaGetLastError());
}
