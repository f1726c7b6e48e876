// FP64 device reference for rms_norm: the verifier draws large inputs on the GPU and checks them
// there. The CPU reference's operations in its order: the sum of squares is a chunked_sum
// (mskb/util/parallel.hpp) taken on the device by mskb::gpu::ChunkedSum (chunks of 2^16 consecutive
// elements, each added in index order from 0.0, the chunk sums added in chunk order from 0.0);
// separate multiplies and adds (no FMA), correctly rounded division and square root. No atomics: the
// same bits on every run, and the CPU's.
#include <cstddef>

#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {

// Term i: x[i] * x[i].
struct Square {
  const void* x;
  int bytes;
  __device__ double operator()(std::size_t i) const {
    const double v = mskb::gpu::load_input(x, i, bytes);
    return __dmul_rn(v, v);
  }
};

// *rinv = 1 / sqrt(sum / n + eps).
struct InverseRms {
  double* rinv;
  double n, eps;
  __device__ void operator()(double sum) const { *rinv = __ddiv_rn(1.0, __dsqrt_rn(__dadd_rn(__ddiv_rn(sum, n), eps))); }
};

// y[i] = w[i] * x[i] * rinv + b[i], left to right as on the CPU.
__global__ void normalise(const void* x, const void* w, const void* b, std::size_t n, int bytes, const double* rinv_p,
                          double* y) {
  using mskb::gpu::load_input;
  const double rinv = *rinv_p;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    y[i] = __dadd_rn(__dmul_rn(__dmul_rn(load_input(w, i, bytes), load_input(x, i, bytes)), rinv), load_input(b, i, bytes));
}

}  // namespace

MSKB_DEVICE_REFERENCE(rms_norm) {
  (void)shape;
  const std::size_t n = args.elements[1];
  if (n == 0) return;
  const int bytes = static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision));
  mskb::gpu::DeviceMemory scratch(sizeof(double));  // rinv
  auto* rinv = static_cast<double*>(scratch.get());
  mskb::gpu::ChunkedSum sums(n);  // declared after `scratch`: its destructor waits for the device first
  sums.sum_then(Square{args.in[1], bytes}, InverseRms{rinv, static_cast<double>(n), args.scalars[4]});
  normalise<<<4096, 256>>>(args.in[1], args.in[2], args.in[3], n, bytes, rinv, args.out[0]);
  MSKB_CUDA_CHECK(cudaGetLastError());
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());  // before the scratch is freed
}
