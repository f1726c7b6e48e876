// monte_carlo_int: result += (b - a) * mean(y) over N given samples (no RNG inside the kernel).
#include <cstdint>

#include "../common/integration.hpp"
#include "mskb/util/parallel.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(monte_carlo_int) {
  using namespace mskb;
  using namespace mskb::integration;
  spec.semantics =
      "Monte Carlo integral estimate from given samples (no random numbers are drawn): "
      "result[0] += (b - a) * (y_samples[0] + ... + y_samples[N-1]) / N. result is a single element that the "
      "caller zeroes before the call (accumulate); the kernel must add the full value (atomics allowed). "
      "a and b stay float in BF16; in BF16 y_samples and result are __nv_bfloat16 (accumulate in FP32, e.g. in an "
      "internal float temporary, and round to bf16 once). N >= 1.";
  spec.vendor = "CUB: one cub::DeviceReduce::TransformReduce over the raw samples (widened to float as loaded: FP32 "
                "accumulation, vectorized loads in both precisions) whose output goes through a "
                "thrust::transform_output_iterator adding (b-a)/N * sum to result (bf16: rounded once); no finishing "
                "kernel, no host synchronization but the final one";
  spec.params = {in("y_samples"), accumulate("result"), float_arg("a"), float_arg("b"), int_arg("N")};
  for (int e : {14, 16, 18, 20, 22}) spec.paper.push_back({{"N", int64_t{1} << e}});
  spec.heldout = {{{"N", 1}}, {{"N", 3}}, {{"N", 1000}}, {{"N", 65537}}, {{"N", (int64_t{1} << 22) + 5}}, {{"N", 5'000'001}}};
  spec.large = {{{"N", int64_t{1} << 24}}, {{"N", int64_t{1} << 26}}, {{"N", int64_t{1} << 28}}};
  set_integration_inputs(spec);  // samples U(-10, 10), [a, b] inside [-1000, 1000) (../common/integration.hpp)
  spec.reference = [](const Shape&, Precision, Args& a) {
    // FP64 chunked sums added in a fixed order: the same whatever the thread count (the device
    // reference in reference.cu takes the same sums in the same order).
    const double* y = a[0].data.data();
    const double sum = chunked_sum(static_cast<int64_t>(a[0].data.size()), [y](int64_t i) { return y[i]; });
    const double n = static_cast<double>(a[0].data.size());
    a[1].data[0] += (a[3].value - a[2].value) * sum / n;
  };
  // The FP32 sum's error (scaled by the widest (b-a)/N) plus a relative term for the final products;
  // BF16 adds one rounding of the result (up to 2^-8 relative). One FP32 accumulator's sum of
  // U(-10, 10) samples (standard deviation 5.8) errs by 0.3 * 5.8 u n = 1.7 u n (standard deviation,
  // u = 2^-24; its partial sums are a random walk) with a heavy tail: 1 in 10^4 sums errs by 12 u n,
  // 0.4 of the 3 * kMaxTerm u n = 30 u n that sum_budget allows. (The previous n / 16, 0.6 u n, was a
  // third of a standard deviation: block partials added by atomics, 0.1 u n, fitted; one accumulator
  // did not from N = 2^22 on.)
  spec.tolerance = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["N"]);
    const double atol = kMaxWidth / n * sum_budget(n, kMaxTerm);
    return p == Precision::fp32 ? Tolerance{atol, 1e-5} : Tolerance{atol, 8e-3};
  };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["N"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["N"]);
    return Cost{(n + 1.0) * static_cast<double>(real_bytes(p)), n + 3.0};
  };
}
