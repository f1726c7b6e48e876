// FP64 device reference for layer_norm: the verifier draws large inputs on the GPU and checks them
// there. The CPU reference's operations in its order: each statistic is a chunked_sum
// (mskb/util/parallel.hpp) taken on the device by mskb::gpu::ChunkedSum (chunks of 2^16 consecutive
// elements, each added in index order from 0.0, the chunk sums added in chunk order from 0.0), the
// mean's sum first and then, reading the mean on the device, the squared deviations'; separate
// multiplies and adds (no FMA), correctly rounded division and square root. No atomics: the same
// bits on every run, and the CPU's.
#include <cstddef>

#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {

// Term i: (x[i] - mean)^2, mean = *mean_p (on the device).
struct SquaredDeviation {
  const void* x;
  int bytes;
  const double* mean_p;
  __device__ double operator()(std::size_t i) const {
    const double d = __dsub_rn(mskb::gpu::load_input(x, i, bytes), *mean_p);
    return __dmul_rn(d, d);
  }
};

// stats[0] = the mean (sum / n), or with `variance` stats[1] = 1 / sqrt(sum / n + eps).
struct Statistic {
  double* stats;
  double n, eps;
  bool variance;
  __device__ void operator()(double sum) const {
    const double q = __ddiv_rn(sum, n);
    if (variance) {
      stats[1] = __ddiv_rn(1.0, __dsqrt_rn(__dadd_rn(q, eps)));
    } else {
      stats[0] = q;
    }
  }
};

// y[i] = w[i] * (x[i] - mean) * rstd + b[i], left to right as on the CPU.
__global__ void normalise(const void* x, const void* w, const void* b, std::size_t n, int bytes, const double* stats, double* y) {
  using mskb::gpu::load_input;
  const double mean = stats[0], rstd = stats[1];
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    y[i] = __dadd_rn(__dmul_rn(__dmul_rn(load_input(w, i, bytes), __dsub_rn(load_input(x, i, bytes), mean)), rstd),
                     load_input(b, i, bytes));
}

}  // namespace

MSKB_DEVICE_REFERENCE(layer_norm) {
  (void)shape;
  const std::size_t n = args.elements[1];
  if (n == 0) return;
  const int bytes = static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision));
  mskb::gpu::DeviceMemory scratch(2 * sizeof(double));  // mean and rstd
  auto* stats = static_cast<double*>(scratch.get());
  const double dn = static_cast<double>(n), eps = args.scalars[4];
  mskb::gpu::ChunkedSum sums(n);  // declared after `scratch`: its destructor waits for the device first
  sums.sum_then(mskb::gpu::InputTerm{args.in[1], bytes}, Statistic{stats, dn, eps, false});
  sums.sum_then(SquaredDeviation{args.in[1], bytes, stats}, Statistic{stats, dn, eps, true});
  normalise<<<4096, 256>>>(args.in[1], args.in[2], args.in[3], n, bytes, stats, args.out[0]);
  MSKB_CUDA_CHECK(cudaGetLastError());
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());  // before the scratch is freed
}
