// FP64 device reference for MSE_loss: the verifier draws large inputs on the GPU and checks them
// there. The CPU reference's operations in its order (chunked_sum, taken on the device by
// mskb::gpu::ChunkedSum): d = X[i] - Y[i] and d * d rounded separately (no FMA), chunks of 2^16
// squares each added one by one from 0.0 in index order, the chunk sums added in chunk order from
// 0.0, the total divided by N; so the result is the CPU reference's, bit for bit. Deterministic: no
// atomics.
#include <cstddef>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
// Term i: (x[i] - y[i])^2.
struct SquaredDifference {
  const void *x, *y;
  int bytes;
  __device__ double operator()(std::size_t i) const {
    const double d = __dsub_rn(mskb::gpu::load_input(x, i, bytes), mskb::gpu::load_input(y, i, bytes));
    return __dmul_rn(d, d);
  }
};

// *out = total / n.
struct MeanTo {
  double* out;
  double n;
  __device__ void operator()(double total) const { *out = __ddiv_rn(total, n); }
};
}  // namespace

MSKB_DEVICE_REFERENCE(MSE_loss) {
  (void)shape;
  const std::size_t n = args.elements[1];
  if (n == 0) return;  // no elements (N >= 1 by the semantics): loss stays 0
  const int bytes = static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision));
  mskb::gpu::ChunkedSum sums(n);
  sums.sum_then(SquaredDifference{args.in[1], args.in[2], bytes}, MeanTo{args.out[0], static_cast<double>(n)});
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());
}
