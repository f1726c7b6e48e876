// FP64 device reference for hinge_loss: the verifier draws large inputs on the GPU and checks them
// there. loss = max(0, 1 - (2 t - 1) p), the CPU reference's operations in its order, unfused, and
// std::max's choice ((0 < v) ? v : 0), so the same bits.
#include <cstddef>
#include <cstdint>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
__global__ void hinge_fp64(const void* predictions, const int32_t* targets, double* loss, std::size_t n, int bytes) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const double y = __dsub_rn(__dmul_rn(2.0, static_cast<double>(targets[i])), 1.0);
    const double v = __dsub_rn(1.0, __dmul_rn(y, mskb::gpu::load_input(predictions, i, bytes)));
    loss[i] = 0.0 < v ? v : 0.0;
  }
}
}  // namespace

MSKB_DEVICE_REFERENCE(hinge_loss) {
  (void)shape;
  hinge_fp64<<<4096, 256>>>(args.in[1], static_cast<const int32_t*>(args.in[2]), args.out[0], args.elements[0],
                            static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)));
  MSKB_CUDA_CHECK(cudaGetLastError());
}
