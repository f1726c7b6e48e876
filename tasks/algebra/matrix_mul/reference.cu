// FP64 device reference for matrix_mul (the CPU FP64 reference would take minutes at the paper's
// M = 16384, N = 2048, K = 4096): the verifier draws large inputs on the GPU and checks them there.
// mskb::gpu::dgemm_unfused reads A and B in their element types and sums each element of C over k
// in order with separate multiply and add (no FMA): the CPU reference's operations in its order.
#include <cstdint>

#include "mskb/gpu/dgemm.cuh"
#include "mskb/gpu/reference.cuh"

MSKB_DEVICE_REFERENCE(matrix_mul) {
  mskb::gpu::dgemm_unfused(args.in[0], args.in[1], args.out[2], shape["M"], shape["N"], shape["K"],
                           static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)));
}
