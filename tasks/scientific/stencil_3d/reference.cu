// FP64 device reference for stencil_3d: the verifier draws large inputs on the GPU and checks them
// there. The CPU reference's operations in its order, unfused: boundary cells (any index 0 or last)
// copied, interior nb = ((((x- + x+) + y-) + y+) + z-) + z+, then u + r * (nb - 6u).
#include <cstdint>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {

__global__ void stencil3d_fp64(const void* u_old, double* u_new, double r, int64_t nx, int64_t ny, int64_t nz, int bytes) {
  const int64_t sx = ny * nz, sy = nz, n = nx * sx;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; c < n; c += step) {
    const int64_t i = c / sx, j = (c % sx) / nz, k = c % nz;
    auto u = [&](int64_t q) { return mskb::gpu::load_input(u_old, static_cast<std::size_t>(q), bytes); };
    if (i == 0 || i == nx - 1 || j == 0 || j == ny - 1 || k == 0 || k == nz - 1) {
      u_new[c] = u(c);
      continue;
    }
    const double nb =
        __dadd_rn(__dadd_rn(__dadd_rn(__dadd_rn(__dadd_rn(u(c - sx), u(c + sx)), u(c - sy)), u(c + sy)), u(c - 1)), u(c + 1));
    u_new[c] = __dadd_rn(u(c), __dmul_rn(r, __dsub_rn(nb, __dmul_rn(6.0, u(c)))));
  }
}

}  // namespace

MSKB_DEVICE_REFERENCE(stencil_3d) {
  stencil3d_fp64<<<4096, 256>>>(args.in[1], args.out[0], args.scalars[2], shape["nx"], shape["ny"], shape["nz"],
                                static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)));
  MSKB_CUDA_CHECK(cudaGetLastError());
}
