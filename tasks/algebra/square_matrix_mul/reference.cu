// FP64 device reference for square_matrix_mul (the CPU FP64 reference would take minutes at M = 4096
// and beyond): the verifier draws large inputs on the GPU and checks them there. matrix_mul's
// mskb::gpu::dgemm_unfused with M = N = K: each element of C summed over k in order with separate
// multiply and add (no FMA), the CPU reference's operations in its order.
#include <cstdint>

#include "mskb/gpu/dgemm.cuh"
#include "mskb/gpu/reference.cuh"

MSKB_DEVICE_REFERENCE(square_matrix_mul) {
  const int64_t M = shape["M"];
  mskb::gpu::dgemm_unfused(args.in[0], args.in[1], args.out[2], M, M, M, static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)));
}
