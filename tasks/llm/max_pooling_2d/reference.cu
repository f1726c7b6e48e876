// FP64 device reference for max_pooling_2d: the verifier draws large inputs on the GPU and checks
// them there. One output per thread (grid-stride): the window scanned as on the CPU (rows, then
// columns, padded cells skipped), m = max(m, x) from -inf with std::max's rule (x replaces m only
// where m < x), so the result is the CPU's bit for bit.
#include <cstdint>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"

namespace {

__global__ void max_pool_fp64(const void* x, double* y, int64_t planes, int64_t h, int64_t w, int64_t k, int64_t st, int64_t p,
                              int64_t oh, int64_t ow, int bytes) {
  const int64_t n = planes * oh * ow;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; o < n; o += step) {
    const int64_t plane = o / (oh * ow), rc = o % (oh * ow), r = rc / ow, c = rc % ow;
    double m = -HUGE_VAL;
    for (int64_t i = r * st - p; i < r * st - p + k; ++i)
      for (int64_t j = c * st - p; j < c * st - p + k; ++j)
        if (i >= 0 && i < h && j >= 0 && j < w) {
          const double v = mskb::gpu::load_input(x, static_cast<std::size_t>((plane * h + i) * w + j), bytes);
          m = m < v ? v : m;
        }
    y[o] = m;
  }
}

}  // namespace

MSKB_DEVICE_REFERENCE(max_pooling_2d) {
  const int64_t h = shape["H"], w = shape["W"], k = shape["k"], st = shape["s"], p = shape["p"];
  const int64_t oh = (h + 2 * p - k) / st + 1, ow = (w + 2 * p - k) / st + 1;
  max_pool_fp64<<<4096, 256>>>(args.in[0], args.out[1], shape["N"] * shape["C"], h, w, k, st, p, oh, ow,
                               static_cast<int>(mskb::elem_bytes(mskb::Elem::real, precision)));
  MSKB_CUDA_CHECK(cudaGetLastError());
}
