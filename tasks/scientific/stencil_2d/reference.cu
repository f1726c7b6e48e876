// FP64 device reference for stencil_2d: the verifier draws large inputs on the GPU and checks them
// there. The CPU reference's operations in its order, unfused: boundary cells copied, interior
// u + r * (up + down + left + right - 4u).
#include <cstdint>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
__global__ void stencil_fp64(const void* u_old, double* u_new, double r, int64_t nx, int64_t ny, int bytes) {
  const int64_t n = nx * ny;
  for (int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; c < n; c += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t i = c / ny, j = c % ny;
    auto u = [&](int64_t k) { return mskb::gpu::load_input(u_old, static_cast<std::size_t>(k), bytes); };
    if (i == 0 || i == nx - 1 || j == 0 || j == ny - 1) {
      u_new[c] = u(c);
      continue;
    }
    const double sum = __dadd_rn(__dadd_rn(__dadd_rn(u(c - ny), u(c + ny)), u(c - 1)), u(c + 1));
    u_new[c] = __dadd_rn(u(c), __dmul_rn(r, __dsub_rn(sum, __dmul_rn(4.0, u(c)))));
  }
}
}  // namespace

MSKB_DEVICE_REFERENCE(stencil_2d) {
  stencil_fp64<<<4096, 256>>>(args.in[1], args.out[0], args.scalars[2], shape["nx"], shape["ny"],
                              static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)));
  MSKB_CUDA_CHECK(cudaGetLastError());
}
