// FP64 device reference for dot_product: the verifier draws large inputs on the GPU and checks
// them there. The CPU reference's sum in its order (chunked_sum, taken on the device by
// mskb::gpu::ChunkedSum): chunks of 2^16 products, each added one by one from 0.0 in index order,
// then the chunk sums added in chunk order from 0.0; separate multiply and add (no FMA, and the
// products of two floats are exact in FP64 anyway), so the result is the CPU reference's, bit for
// bit. Deterministic: no atomics.
#include <cstddef>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
// Term i: x[i] * y[i].
struct Product {
  const void *x, *y;
  int bytes;
  __device__ double operator()(std::size_t i) const {
    return __dmul_rn(mskb::gpu::load_input(x, i, bytes), mskb::gpu::load_input(y, i, bytes));
  }
};
}  // namespace

MSKB_DEVICE_REFERENCE(dot_product) {
  (void)shape;
  const std::size_t n = args.elements[1];
  if (n == 0) return;  // the empty sum: loss stays 0
  const int bytes = static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision));
  mskb::gpu::ChunkedSum sums(n);
  sums.sum(Product{args.in[1], args.in[2], bytes}, args.out[0]);
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());
}
