// FP64 device reference for high_order_contraction (up to ~7e10 multiply-adds in the large sweep):
// the verifier draws large inputs on the GPU and checks them there. One thread per output element
// C[a,b,c], reading A and B in their element types; the CPU reference's operations in its order:
// for each x in order, the sum over y in order, added to the output (separate multiply and add, no FMA).
#include <cstdint>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {

__global__ void contract_fp64(const void* A, const void* B, double* C, int64_t ad, int64_t bd, int64_t cd, int64_t xd, int64_t yd,
                              int bytes) {
  using mskb::gpu::load_input;
  const int64_t n = ad * bd * cd;
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < n;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t c = idx % cd, b = (idx / cd) % bd, a = idx / (cd * bd);
    double out = 0.0;
    for (int64_t x = 0; x < xd; ++x) {
      const int64_t arow = ((a * xd + x) * bd + b) * yd, brow = (x * cd + c) * yd;
      double acc = 0.0;
      for (int64_t y = 0; y < yd; ++y)
        acc = __dadd_rn(acc, __dmul_rn(load_input(A, static_cast<std::size_t>(arow + y), bytes),
                                       load_input(B, static_cast<std::size_t>(brow + y), bytes)));
      out = __dadd_rn(out, acc);
    }
    C[idx] = out;
  }
}

}  // namespace

MSKB_DEVICE_REFERENCE(high_order_contraction) {
  const int64_t ad = shape["a_dim"], bd = shape["b_dim"], cd = shape["c_dim"], xd = shape["x_dim"], yd = shape["y_dim"];
  contract_fp64<<<4096, 256>>>(args.in[0], args.in[1], args.out[2], ad, bd, cd, xd, yd,
                               static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)));
  MSKB_CUDA_CHECK(cudaGetLastError());
}
