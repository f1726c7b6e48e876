// FP64 device reference for monte_carlo_int: the verifier draws large inputs on the GPU and checks
// them there. The CPU reference's operations in its order: the sum of the samples is a chunked_sum
// (mskb/util/parallel.hpp) taken on the device by mskb::gpu::ChunkedSum (chunks of 2^16 consecutive
// samples, each added in index order from 0.0, the chunk sums added in chunk order from 0.0), then
// result[0] += (b - a) * sum / n (left to right, no FMA). No atomics: the same bits on every run, and
// the CPU's.
#include <cstddef>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
// result[0] += (b - a) * sum / n.
struct AddWidthTimesMean {
  double* result;
  double n, a, b;
  __device__ void operator()(double sum) const {
    result[0] = __dadd_rn(result[0], __ddiv_rn(__dmul_rn(__dsub_rn(b, a), sum), n));
  }
};
}  // namespace

MSKB_DEVICE_REFERENCE(monte_carlo_int) {
  (void)shape;
  const std::size_t n = args.elements[0];
  if (n == 0) return;
  const int bytes = static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision));
  mskb::gpu::ChunkedSum sums(n);
  sums.sum_then(mskb::gpu::InputTerm{args.in[0], bytes},
                AddWidthTimesMean{args.out[1], static_cast<double>(n), args.scalars[2], args.scalars[3]});
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());
}
