// conv_2d: valid 2-D cross-correlation of one single-channel image with one filter.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "mskb/util/parallel.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

namespace {
// FP32 error of a K-term dot product of values in [-1, 1] (see conv_1d).
double dot_budget(double k) { return std::ldexp(1.0, -24) * (16.0 * std::sqrt(k) + k); }

mskb::Shape shape(int64_t ir, int64_t ic, int64_t kr, int64_t kc) {
  return mskb::Shape{{"input_rows", ir}, {"input_cols", ic}, {"kernel_rows", kr}, {"kernel_cols", kc}};
}
}  // namespace

MSKB_TASK(conv_2d) {
  using namespace mskb;
  spec.semantics =
      "Valid 2-D cross-correlation (no kernel flip, no padding, stride 1, one channel) of a row-major "
      "input_rows x input_cols image with a row-major kernel_rows x kernel_cols filter: output[i][j] = "
      "sum_{m<kernel_rows} sum_{n<kernel_cols} input[i+m][j+n] * kernel[m][n], output row-major with "
      "(input_rows - kernel_rows + 1) rows and (input_cols - kernel_cols + 1) columns. The filter may be "
      "non-square and larger than 32x32; 1 <= kernel dims <= input dims. BF16: load bf16, accumulate in FP32, "
      "store bf16 once.";
  spec.vendor =
      "cuFFT: FFT-based correlation in FP64 (the image widened, the filter zero-padded to the image's size, one batched "
      "D2Z plan for both, X * conj(F) / (rows * cols), one Z2D plan, the valid window rounded into the output once); "
      "plans made once per image size, one shared work area. FP64 because an FFT's error grows with the whole image's "
      "norm and the FP32 tolerance is per element. bf16: bf16 loads widened, the output rounded once. Rejected: cuDNN "
      "cudnnConvolutionForward (one channel: an implicit GEMM whose N is 1, P 0.09 on the H200), FP32 transforms "
      "(measured alternative tests/vendor_alternatives/conv_2d_cufft_fp32.cu). The smallest paper shapes are "
      "launch-bound for this route (eight launches)";
  spec.vendor_abi_cost =
      "the filter arrives with every call, so it is zero-padded to the image's size and transformed on every call (an "
      "application with a fixed filter transforms it once); glue around cuFFT: the image widened to FP64, the spectra's "
      "product and the valid window narrowed into the output (four small kernels and a memset in all)";
  spec.params = {in("input"),         in("kernel"),        out("output"),         int_arg("input_rows"),
                 int_arg("input_cols"), int_arg("kernel_rows"), int_arg("kernel_cols")};
  for (int64_t n : {256, 1024, 4096})
    for (int64_t k : {8, 16, 32}) spec.paper.push_back(shape(n, n, k, k));
  spec.heldout = {shape(1, 1, 1, 1),         shape(5, 7, 5, 7),        shape(33, 1000, 3, 40),
                  shape(257, 300, 9, 5),     shape(1000, 999, 17, 1),  shape(1023, 777, 40, 40),
                  shape(600, 3001, 1, 33),   shape(2049, 2047, 33, 31)};
  spec.large = {shape(8192, 8192, 32, 32), shape(16384, 16384, 16, 16), shape(12288, 12288, 24, 24)};
  // input and kernel uniform in [-1, 1): drawn on the GPU by the verifier for large shapes (CPU twin
  // elsewhere), whose FP64 reference is then reference.cu's (the same sums in the same order).
  set_uniform_inputs(spec, {[](const Shape& s, Rng&, std::vector<std::size_t>& n, std::vector<double>& v) {
                              const int64_t ir = s["input_rows"], ic = s["input_cols"], kr = s["kernel_rows"], kc = s["kernel_cols"];
                              n[0] = static_cast<std::size_t>(ir * ic);
                              n[1] = static_cast<std::size_t>(kr * kc);
                              n[2] = static_cast<std::size_t>((ir - kr + 1) * (ic - kc + 1));
                              v[3] = static_cast<double>(ir);
                              v[4] = static_cast<double>(ic);
                              v[5] = static_cast<double>(kr);
                              v[6] = static_cast<double>(kc);
                            },
                            {{-1.0, 1.0}, {-1.0, 1.0}, {}, {}, {}, {}, {}}});
  spec.reference = [](const Shape& s, Precision, Args& a) {
    const int64_t ic = s["input_cols"], kr = s["kernel_rows"], kc = s["kernel_cols"];
    const int64_t orows = s["input_rows"] - kr + 1, ocols = ic - kc + 1;
    const double* in = a[0].data.data();
    const double* w = a[1].data.data();
    double* out = a[2].data.data();
    parallel_for(orows, [&](int64_t i) {
      double* o = out + i * ocols;
      std::fill(o, o + ocols, 0.0);
      for (int64_t m = 0; m < kr; ++m)
        for (int64_t n = 0; n < kc; ++n) {
          const double wv = w[m * kc + n];
          const double* x = in + (i + m) * ic + n;
          for (int64_t j = 0; j < ocols; ++j) o[j] += x[j] * wv;
        }
    }, 1);
  };
  spec.tolerance = [](const Shape& s, Precision p) {
    const double atol = dot_budget(static_cast<double>(s["kernel_rows"] * s["kernel_cols"]));
    return p == Precision::fp32 ? Tolerance{atol, 1e-5} : Tolerance{atol, 8e-3};
  };
  spec.complexity = [](const Shape& s) {
    return static_cast<uint64_t>(s["input_rows"] * s["input_cols"] * s["kernel_rows"] * s["kernel_cols"]);
  };
  spec.cost = [](const Shape& s, Precision p) {
    const double ir = static_cast<double>(s["input_rows"]), ic = static_cast<double>(s["input_cols"]);
    const double kr = static_cast<double>(s["kernel_rows"]), kc = static_cast<double>(s["kernel_cols"]);
    const double outs = (ir - kr + 1) * (ic - kc + 1);
    return Cost{(ir * ic + kr * kc + outs) * static_cast<double>(real_bytes(p)), 2.0 * outs * kr * kc};
  };
}
