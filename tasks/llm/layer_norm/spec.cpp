// layer_norm: normalises ONE vector of length N (mean and biased variance over all N elements), then
// applies an elementwise affine transform: output = weight * (input - mean) / sqrt(var + eps) + bias.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "mskb/core/generators.hpp"
#include "mskb/util/parallel.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(layer_norm) {
  using namespace mskb;
  spec.semantics =
      "Layer normalisation of ONE vector of N elements: mean = sum(input)/N, var = sum((input-mean)^2)/N "
      "(biased variance), output[i] = weight[i] * (input[i] - mean) / sqrt(var + epsilon) + bias[i] for i in "
      "[0, N). epsilon is added inside the square root. input, weight, bias and output are device arrays of N "
      "elements (bf16 in the bf16 variant; epsilon stays float). N >= 1 and may be far larger than one block "
      "(up to 2^28): the statistics need a grid-wide reduction.";
  spec.vendor =
      "CUB: no host synchronisation, cub::DeviceReduce::TransformReduce of (x, x^2) in FP64 written through a "
      "transform output iterator as {mean, 1/sqrt(var + eps)} into device scratch, then cub::DeviceTransform over "
      "(input, weight, bias) in FP32 (bf16 widened, one rounding); 5N elements of traffic. Rejected: cuDNN "
      "cudnnReduceTensor x2 + cudnnOpTensor + a host copy mid-call, FP32 staging for bf16 (0.09 / 0.33 of the "
      "roofline); cuDNN NORM_FORWARD engines normalise [batch, hidden] rows, not one vector of up to 2^28. Under 0.8 of the bandwidth roofline at the large sweep's largest shape (H200, 4aae2a5): bf16 0.70 "
      "(fp32 0.81): two passes (5N elements against the roofline's 4N: 0.8 is the route's ceiling), and the "
      "bf16 reduction pass reads through a transform iterator with 2-byte loads (the bf16 call takes 0.58x "
      "the fp32 call's time for half its bytes)";
  spec.params = {out("output"), in("input"), in("weight"), in("bias"), float_arg("epsilon"), int_arg("N")};
  for (int64_t n = 64; n <= 1024; n *= 2) spec.paper.push_back({{"N", n}});
  spec.heldout = {{{"N", 2}},      {{"N", 3}},         {{"N", 1000}},      {{"N", 1025}},
                  {{"N", 4097}},   {{"N", 65537}},     {{"N", 1'000'003}}};
  spec.large = {{{"N", int64_t{1} << 24}}, {{"N", int64_t{1} << 26}}, {{"N", int64_t{1} << 28}}};
  // Input with a non-zero mean (the mean subtraction matters) and a spread of ~2.3: U(-3, 5); positive
  // weights around 1, U(0.5, 1.5), and biases U(-1, 1), so outputs are O(1) and never all tiny. Drawn
  // by the counter generator (on the GPU by the verifier for large shapes, its CPU twin elsewhere).
  set_uniform_inputs(spec, {[](const Shape& s, Rng&, std::vector<std::size_t>& n, std::vector<double>& v) {
                              n[0] = n[1] = n[2] = n[3] = static_cast<std::size_t>(s["N"]);
                              v[4] = 1e-5;
                              v[5] = static_cast<double>(s["N"]);
                            },
                            {{}, {-3.0, 5.0}, {0.5, 1.5}, {-1.0, 1.0}, {}, {}}});
  // Statistics as FP64 chunked sums added in a fixed order (the same whatever the thread count; the
  // device reference in reference.cu takes the same sums in the same order).
  spec.reference = [](const Shape& s, Precision, Args& a) {
    const int64_t n = s["N"];
    const double* x = a[1].data.data();
    const double mean = chunked_sum(n, [x](int64_t i) { return x[i]; }) / static_cast<double>(n);
    const double var = chunked_sum(n, [x, mean](int64_t i) { return (x[i] - mean) * (x[i] - mean); }) / static_cast<double>(n);
    const double rstd = 1.0 / std::sqrt(var + a[4].value);
    const double *w = a[2].data.data(), *b = a[3].data.data();
    double* y = a[0].data.data();
    parallel_blocks(n, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) y[i] = w[i] * (x[i] - mean) * rstd + b[i];
    });
  };
  // |normalised| <= ~1.8 and |output| <= ~3.7. FP32: float statistics from tree sums carry a relative
  // error of ~1e-6, but one FP32 accumulator over m squared deviations (a single thread, or each thread
  // of one 256-thread block striding over N = 2^28: m = 2^20) loses the small ones below half an ulp of
  // its running sum: the variance comes out -5e-5 (m = 2^18) to -4e-4 (m = 2^20) too small (and the
  // sums stagnate altogether beyond ~2^24). Covered up to m = 2^20, i.e. a single accumulator up to
  // N = 2^20 and 256 (or more) strided accumulators, or block sums added by float atomics, at every N:
  // atol adds u min(N, 2^20) / 32 (1.95e-3 from N = 2^20 on, where the worst output errs by 1.5 * 1.73
  // * 2e-4 = 5e-4; the previous 1e-5 was exceeded ~18x by one accumulator at the held-out N = 1000003
  // and ~50x by a 256-thread block at N = 2^28), as rms_norm. BF16: one rounding of the output is 2^-9
  // relative; a route that also rounds the normalised vector to bf16 adds <= 1.5 * 1.8 * 2^-9 ~ 5e-3.
  // Under 16 elements the variance comes arbitrarily close to 0 (N = 2: the two draws within 1e-2 of
  // each other about once in 400 instances), and rstd, up to 1/sqrt(eps) = 316, amplifies the FP32
  // rounding of the mean (u |mean|, |mean| <= 5) in x - mean and again through the variance: FP32 atol
  // adds 2 * 1.5 * 5 u / sqrt(eps) = 2.8e-4 there (batch_norm's channels of N = 2 rows failed the
  // tolerance without it on the H200). 16 draws (spread 8) within 0.2 of each other: ~1e-16.
  spec.tolerance = [](const Shape& s, Precision p) {
    const double m = static_cast<double>(std::min<int64_t>(s["N"], int64_t{1} << 20));
    const double few = s["N"] < 16 ? 2.0 * 1.5 * 5.0 * 0x1.0p-24 / std::sqrt(1e-5) : 0.0;
    return p == Precision::fp32 ? Tolerance{1e-5 + 0x1.0p-24 * m / 32.0 + few, 1e-5} : Tolerance{1.5e-2, 1e-2};
  };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["N"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["N"]);
    return Cost{4.0 * n * static_cast<double>(real_bytes(p)), 8.0 * n};
  };
}
