// FP64 device reference for conv_2d: the verifier draws large inputs on the GPU and checks them
// there. Direct valid cross-correlation, one output per thread (grid-stride), reading the image and
// the filter in their element types: output[i][j] summed over m then n in order, with separate
// multiply and add (no FMA), the CPU reference's operations in its order.
#include <cstdint>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {

__global__ void conv2d_fp64(const void* in, const void* w, double* out, int64_t ic, int64_t kr, int64_t kc, int64_t orows,
                            int64_t ocols, int bytes) {
  using mskb::gpu::load_input;
  const int64_t n = orows * ocols;
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; o < n; o += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t i = o / ocols, j = o % ocols;
    double acc = 0.0;
    for (int64_t m = 0; m < kr; ++m) {
      const int64_t x = (i + m) * ic + j;
      for (int64_t c = 0; c < kc; ++c)
        acc = __dadd_rn(acc, __dmul_rn(load_input(in, static_cast<std::size_t>(x + c), bytes),
                                       load_input(w, static_cast<std::size_t>(m * kc + c), bytes)));
    }
    out[o] = acc;
  }
}

}  // namespace

MSKB_DEVICE_REFERENCE(conv_2d) {
  const int64_t ic = shape["input_cols"], kr = shape["kernel_rows"], kc = shape["kernel_cols"];
  const int64_t orows = shape["input_rows"] - kr + 1, ocols = ic - kc + 1;
  conv2d_fp64<<<4096, 256>>>(args.in[0], args.in[1], args.out[2], ic, kr, kc, orows, ocols,
                             static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)));
  MSKB_CUDA_CHECK(cudaGetLastError());
}
