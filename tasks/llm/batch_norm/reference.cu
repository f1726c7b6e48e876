// FP64 device reference for batch_norm: the verifier draws large inputs on the GPU and checks them
// there. The CPU reference's operations in its order: per channel, the rows summed in blocks of 1024
// (each block from 0.0 in row order), the block sums added in block order from 0.0; mean = sum / N,
// the squared deviations summed the same way, rstd = 1 / sqrt(sq / N + eps), output = gamma * (x -
// mean) * rstd + beta left to right. Separate multiplies and adds (no FMA), correctly rounded
// division and square root, no atomics: the CPU's bits.
#include <cstddef>

#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {

constexpr std::size_t kRows = 1024;  // the CPU reference's row block

// partial[rb * c + k] = the sum over the rows of block rb of term(x[r][k]) (mean == nullptr: x;
// otherwise (x - mean[k])^2), in row order.
__global__ void block_sums(const void* x, int bytes, std::size_t n, std::size_t c, const double* mean, double* partial) {
  const std::size_t row_blocks = (n + kRows - 1) / kRows;
  for (std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; t < row_blocks * c;
       t += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t rb = t / c, k = t % c, r0 = rb * kRows, r1 = r0 + kRows < n ? r0 + kRows : n;
    double acc = 0.0;
    for (std::size_t r = r0; r < r1; ++r) {
      const double v = mskb::gpu::load_input(x, r * c + k, bytes);
      if (mean == nullptr) {
        acc = __dadd_rn(acc, v);
      } else {
        const double d = __dadd_rn(v, -mean[k]);
        acc = __dadd_rn(acc, __dmul_rn(d, d));
      }
    }
    partial[t] = acc;
  }
}

// stat[k] = the block sums of channel k added in block order, / n; with eps >= 0: 1 / sqrt(that + eps).
__global__ void channel_stat(const double* partial, std::size_t row_blocks, std::size_t c, double n, double eps, bool rstd, double* stat) {
  for (std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; k < c; k += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    double acc = 0.0;
    for (std::size_t rb = 0; rb < row_blocks; ++rb) acc = __dadd_rn(acc, partial[rb * c + k]);
    const double m = __ddiv_rn(acc, n);
    stat[k] = rstd ? __ddiv_rn(1.0, __dsqrt_rn(__dadd_rn(m, eps))) : m;
  }
}

__global__ void normalise(const void* x, const void* gamma, const void* beta, int bytes, std::size_t total, std::size_t c, const double* mean,
                          const double* rstd, double* y) {
  using mskb::gpu::load_input;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < total; i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t k = i % c;
    const double centred = __dadd_rn(load_input(x, i, bytes), -mean[k]);
    y[i] = __dadd_rn(__dmul_rn(__dmul_rn(load_input(gamma, k, bytes), centred), rstd[k]), load_input(beta, k, bytes));
  }
}

}  // namespace

MSKB_DEVICE_REFERENCE(batch_norm) {
  (void)shape;
  const auto n = static_cast<std::size_t>(args.scalars[5]), c = static_cast<std::size_t>(args.scalars[6]);
  if (n == 0 || c == 0) return;
  const int bytes = static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision));
  const std::size_t row_blocks = (n + kRows - 1) / kRows;
  mskb::gpu::DeviceMemory partial(row_blocks * c * sizeof(double)), stats(2 * c * sizeof(double));
  auto* p = static_cast<double*>(partial.get());
  auto* mean = static_cast<double*>(stats.get());
  double* rstd = mean + c;
  block_sums<<<4096, 256>>>(args.in[1], bytes, n, c, nullptr, p);
  channel_stat<<<1024, 256>>>(p, row_blocks, c, static_cast<double>(n), 0.0, false, mean);
  block_sums<<<4096, 256>>>(args.in[1], bytes, n, c, mean, p);
  channel_stat<<<1024, 256>>>(p, row_blocks, c, static_cast<double>(n), args.scalars[4], true, rstd);
  normalise<<<4096, 256>>>(args.in[1], args.in[2], args.in[3], bytes, n * c, c, mean, rstd, args.out[0]);
  MSKB_CUDA_CHECK(cudaGetLastError());
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());  // before the scratch is freed
}
