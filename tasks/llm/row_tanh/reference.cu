// FP64 device reference for row_tanh: the verifier draws large inputs on the GPU and checks them
// there. tanh(v) in FP64, as on the CPU (CUDA's FP64 tanh is within 1 ulp).
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
struct F {
  __device__ double operator()(double v) const { return tanh(v); }
};
}  // namespace

MSKB_DEVICE_REFERENCE(row_tanh) {
  (void)shape;
  mskb::gpu::map_elementwise(args.in[1], args.out[0], args.elements[1], static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)),
                             F{});
  MSKB_CUDA_CHECK(cudaGetLastError());
}
