// FP64 device reference for simpson_int: the verifier draws large inputs on the GPU and checks them
// there. The CPU reference's operations in its order: the sum of simpson_weight12(i, N) * y[i]
// (../common/integration.hpp, shared with spec.cpp) is a chunked_sum (mskb/util/parallel.hpp) taken
// on the device by mskb::gpu::ChunkedSum (chunks of 2^16 consecutive samples, each added in index
// order from 0.0, the chunk sums added in chunk order from 0.0), then result[0] += h / 12 * sum,
// h = (b - a) / (N - 1) (left to right, no FMA). No atomics: the same bits on every run, and the
// CPU's.
#include <cstddef>
#include <cstdint>

#include "../common/integration.hpp"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {
// Term i: simpson_weight12(i, n) * y[i].
struct WeightedSample {
  const void* y;
  int bytes;
  std::size_t n;
  __device__ double operator()(std::size_t i) const {
    const double w = mskb::integration::simpson_weight12(static_cast<int64_t>(i), static_cast<int64_t>(n));
    return __dmul_rn(w, mskb::gpu::load_input(y, i, bytes));
  }
};

// result[0] += h / 12 * sum, h = (b - a) / intervals.
struct AddSimpsonIntegral {
  double* result;
  double intervals, a, b;
  __device__ void operator()(double sum) const {
    const double h = __ddiv_rn(__dsub_rn(b, a), intervals);
    result[0] = __dadd_rn(result[0], __dmul_rn(__ddiv_rn(h, 12.0), sum));
  }
};
}  // namespace

MSKB_DEVICE_REFERENCE(simpson_int) {
  (void)shape;
  const std::size_t n = args.elements[0];
  if (n < 3) return;  // undefined below 3 samples; never generated (the CPU reference leaves result too)
  const int bytes = static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision));
  mskb::gpu::ChunkedSum sums(n);
  sums.sum_then(WeightedSample{args.in[0], bytes, n},
                AddSimpsonIntegral{args.out[1], static_cast<double>(n - 1), args.scalars[2], args.scalars[3]});
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());
}
