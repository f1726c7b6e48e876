// FP64 device reference for leaky_RELU: the verifier draws large inputs on the GPU and checks them
// there. One FP64 product alpha * v below 0, as on the CPU.
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
struct F {
  double alpha;
  __device__ double operator()(double v) const { return v > 0.0 ? v : __dmul_rn(alpha, v); }
};
}  // namespace

MSKB_DEVICE_REFERENCE(leaky_RELU) {
  (void)shape;
  mskb::gpu::map_elementwise(args.in[1], args.out[0], args.elements[1], static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)),
                             F{args.scalars[3]});
  MSKB_CUDA_CHECK(cudaGetLastError());
}
