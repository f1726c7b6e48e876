// conv_1d: valid 1-D cross-correlation, output[i] = sum_t input[i + t] * kernel[t].
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "mskb/util/parallel.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

namespace {
// FP32 error of a K-term dot product of values in [-1, 1]: sqrt(K) growth for blocked or tree orders plus a
// linear term for one long sequential accumulator. A sequential FP32 sum of K products of U(-1, 1)
// values has an error of standard deviation about 0.14 K u (u = 2^-24: the partial sums grow like
// sqrt(j)); K u is about 7 of those, enough for the maximum over the ~10^8 outputs of a large shape.
// (K/4 u was about 2 standard deviations: on the H200 one of 66.6M outputs of the 8192^2 x 32^2
// conv_2d shape, identical from the naive kernel and cuDNN, was 1.09x that tolerance.)
double dot_budget(double k) { return std::ldexp(1.0, -24) * (16.0 * std::sqrt(k) + k); }
}  // namespace

MSKB_TASK(conv_1d) {
  using namespace mskb;
  spec.semantics =
      "Valid 1-D cross-correlation (no kernel flip, no padding, stride 1): output[i] = sum_{t=0}^{kernel_size-1} "
      "input[i + t] * kernel[t] for i in [0, input_size - kernel_size + 1). output has input_size - kernel_size + 1 "
      "elements; 1 <= kernel_size <= input_size (kernel_size may exceed 256). BF16: load bf16, accumulate in FP32, "
      "store bf16 once.";
  spec.vendor = "";
  spec.vendor_none_reason =
      "no library serves a single-channel 1-D correlation at these sizes. cuDNN's convolution with one input and one "
      "output channel is an implicit GEMM whose N is 1 (measured on the H200 at e192307: P 0.48 / 0.18 paper and 0.38 "
      "/ 0.09 large, fp32 / bf16, against the naive kernel). cuFFT-based correlation (FP64, as conv_2d's vendor) pays "
      "O(log n) passes over the whole signal whatever the filter: by estimate it wins on the large sweep's 2^24-point "
      "signal with 1024 taps and loses on its 2^28-point signal with 32 taps (two 2^28-point FP64 transforms move ~20 "
      "GB against the direct route's ~2 GB) and on the launch-bound paper sweep (32..256 taps, eight launches against "
      "one); the direct correlation the sweeps call for is what the baseline is. Measured alternatives: "
      "tests/vendor_alternatives/conv_1d_cufft_fp64.cu, conv_1d_cudnn.cu";
  spec.params = {in("input"), in("kernel"), out("output"), int_arg("input_size"), int_arg("kernel_size")};
  for (int e = 10; e <= 18; e += 2)
    for (int64_t k : {32, 64, 128, 256}) spec.paper.push_back({{"input_size", int64_t{1} << e}, {"kernel_size", k}});
  spec.heldout = {{{"input_size", 1}, {"kernel_size", 1}},         {{"input_size", 7}, {"kernel_size", 7}},
                  {{"input_size", 1000}, {"kernel_size", 1}},      {{"input_size", 12345}, {"kernel_size", 300}},
                  {{"input_size", 100003}, {"kernel_size", 77}},   {{"input_size", (1 << 18) + 7}, {"kernel_size", 513}},
                  {{"input_size", 2000}, {"kernel_size", 1999}}};
  spec.large = {{{"input_size", int64_t{1} << 24}, {"kernel_size", 1024}},
                {{"input_size", int64_t{1} << 26}, {"kernel_size", 256}},
                {{"input_size", int64_t{1} << 28}, {"kernel_size", 32}}};
  // input and kernel uniform in [-1, 1). Counter generator: drawn on the GPU by the verifier for large
  // shapes, CPU twin elsewhere.
  set_uniform_inputs(spec, {[](const Shape& s, Rng&, std::vector<std::size_t>& n, std::vector<double>& v) {
                              const int64_t in = s["input_size"], k = s["kernel_size"];
                              n[0] = static_cast<std::size_t>(in);
                              n[1] = static_cast<std::size_t>(k);
                              n[2] = static_cast<std::size_t>(in - k + 1);
                              v[3] = static_cast<double>(in);
                              v[4] = static_cast<double>(k);
                            },
                            {{-1.0, 1.0}, {-1.0, 1.0}, {}, {}, {}}});
  spec.reference = [](const Shape& s, Precision, Args& a) {
    const int64_t n = s["input_size"], k = s["kernel_size"], m = n - k + 1;
    const double* in = a[0].data.data();
    const double* w = a[1].data.data();
    double* out = a[2].data.data();
    constexpr int64_t kBlock = 4096;  // outputs per task: the block and its input window stay in cache
    parallel_for((m + kBlock - 1) / kBlock, [&](int64_t b) {
      const int64_t lo = b * kBlock, hi = std::min(m, lo + kBlock);
      for (int64_t i = lo; i < hi; ++i) out[i] = 0.0;
      for (int64_t t = 0; t < k; ++t) {
        const double wt = w[t];
        const double* x = in + t;
        for (int64_t i = lo; i < hi; ++i) out[i] += x[i] * wt;
      }
    }, 1);
  };
  spec.tolerance = [](const Shape& s, Precision p) {
    const double atol = dot_budget(static_cast<double>(s["kernel_size"]));
    return p == Precision::fp32 ? Tolerance{atol, 1e-5} : Tolerance{atol, 8e-3};
  };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["input_size"] * s["kernel_size"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["input_size"]), k = static_cast<double>(s["kernel_size"]);
    const double m = n - k + 1;
    return Cost{(n + k + m) * static_cast<double>(real_bytes(p)), 2.0 * m * k};
  };
}
