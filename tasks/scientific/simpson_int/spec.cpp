// simpson_int: composite Simpson's rule over N uniformly spaced samples, h = (b - a) / (N - 1).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "mskb/core/generators.hpp"
#include "mskb/util/parallel.hpp"
#include "mskb/core/task.hpp"

namespace {
constexpr double kMaxTerm = 10.0;    // |y| <= 10
constexpr double kMaxWidth = 2000.0; // b - a <= 2000
constexpr double kMaxWeight = 16.0;  // largest weight in units of h/12

// Weight of sample i in units of h/12 (see the semantics): 4,16,8,...,16,4 for odd N; for even N the
// same over samples 0..N-2, then the last interval's parabola through the last three samples adds
// (-1, 8, 5) to samples N-3, N-2, N-1 (SciPy >= 1.11 simpson for even N, Cartwright's correction).
double weight12(int64_t i, int64_t n) {
  const int64_t last = (n % 2 == 1) ? n - 1 : n - 2;  // end of the Simpson part
  double w = 0.0;
  if (i <= last) w = (i == 0 || i == last) ? 4.0 : (i % 2 == 1 ? 16.0 : 8.0);
  if (n % 2 == 0) {
    if (i == n - 3) w -= 1.0;
    if (i == n - 2) w += 8.0;
    if (i == n - 1) w += 5.0;
  }
  return w;
}

// Error budget of an FP32 sum of n zero-mean terms of magnitude <= term (see monte_carlo_int): sqrt(n)
// growth for tree-like sums plus a linear term for one sequential FP32 accumulator. The weighted
// samples w[i] * y[i] (w = 4, 16, 8, ... in units of h/12) have a standard deviation of 73, and such a
// sum errs by 0.3 * 73 u n = 22 u n (standard deviation) with a heavy tail (1 in 10^4: 160 u n), a
// third of the 3 * 160 u n allowed. (The previous n / 16, 10 u n, was half a standard deviation.)
double sum_budget(double n, double term) { return std::ldexp(1.0, -24) * term * (64.0 * std::sqrt(n) + 3.0 * n); }
}  // namespace

MSKB_TASK(simpson_int) {
  using namespace mskb;
  spec.semantics =
      "Composite Simpson integral of N >= 3 uniformly spaced samples y[i] = f(a + i*h), h = (b - a) / (N - 1); "
      "result[0] += integral. Odd N (an even number of intervals): integral = h/3 * (y[0] + 4y[1] + 2y[2] + 4y[3] + "
      "... + 4y[N-2] + y[N-1]). Even N (an odd number of intervals, e.g. every paper size): Simpson's rule over "
      "samples 0..N-2, plus the last interval [x[N-2], x[N-1]] integrated with the parabola through the last three "
      "samples, h * (-y[N-3] + 8y[N-2] + 5y[N-1]) / 12 (what scipy.integrate.simpson does for even N since SciPy "
      "1.11). Equivalently integral = h/12 * sum w[i]*y[i] with w = 4,16,8,16,...,8,16,4 for odd N and, for even N, "
      "that pattern over 0..N-2 with w[N-3] = 15, w[N-2] = 12, w[N-1] = 5 (N = 4: 4,15,12,5). result is a single "
      "element the caller zeroes before the call (accumulate; atomics allowed). a and b stay float in BF16; in BF16 "
      "y_samples and result are __nv_bfloat16 (accumulate in FP32, round to bf16 once).";
  spec.vendor = "CUB: cub::DeviceReduce::Sum over a thrust::transform_iterator on a counting_iterator that yields "
                "w[i]*y[i] in FP32 (bf16 widened), into an FP32 temporary; then one tiny kernel adds h/12 * sum";
  spec.params = {in("y_samples"), accumulate("result"), float_arg("a"), float_arg("b"), int_arg("N")};
  for (int e : {14, 16, 18, 20, 22}) spec.paper.push_back({{"N", int64_t{1} << e}});
  spec.heldout = {{{"N", 3}},     {{"N", 5}},     {{"N", 1001}},    {{"N", 65537}},
                  {{"N", 333'333}}, {{"N", (int64_t{1} << 22) + 1}}, {{"N", 5'000'001}}};
  spec.large = {{{"N", (int64_t{1} << 24) + 1}}, {{"N", int64_t{1} << 26}}, {{"N", int64_t{1} << 28}}};
  // Samples U(-10, 10); the interval [a, b] inside [-1000, 1000) with b - a >= 1 (two U(-1000, 1000)
  // draws, redrawn while closer than 1, sorted). The samples are drawn by the counter generator (on
  // the GPU by the verifier for large shapes, its CPU twin elsewhere); a and b come first from the
  // instance's generator.
  set_uniform_inputs(spec, {[](const Shape& s, Rng& rng, std::vector<std::size_t>& n, std::vector<double>& v) {
                              n[0] = static_cast<std::size_t>(s["N"]);
                              n[1] = 1;
                              double x = 0, y = 0;
                              do {
                                x = rng.uniform(-kMaxWidth / 2, kMaxWidth / 2);
                                y = rng.uniform(-kMaxWidth / 2, kMaxWidth / 2);
                              } while (std::fabs(x - y) < 1.0);
                              v[2] = std::min(x, y);
                              v[3] = std::max(x, y);
                              v[4] = static_cast<double>(s["N"]);
                            },
                            {{-kMaxTerm, kMaxTerm}, {}, {}, {}, {}}});
  spec.reference = [](const Shape&, Precision, Args& a) {
    const std::vector<double>& y = a[0].data;
    const auto n = static_cast<int64_t>(y.size());
    if (n < 3) return;  // undefined below 3 samples; never generated
    // FP64 chunked sums added in a fixed order: the same whatever the thread count (the device
    // reference in reference.cu takes the same sums in the same order).
    const double sum = chunked_sum(n, [&y, n](int64_t i) { return weight12(i, n) * y[static_cast<std::size_t>(i)]; });
    const double h = (a[3].value - a[2].value) / static_cast<double>(n - 1);
    a[1].data[0] += h / 12.0 * sum;
  };
  // The FP32 sum of N weighted terms (|w*y| <= 160 in units of h/12), scaled by the widest h/12; BF16 adds
  // one rounding of the result (up to 2^-8 relative).
  spec.tolerance = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["N"]);
    const double atol = kMaxWidth / (n - 1.0) / 12.0 * sum_budget(n, kMaxWeight * kMaxTerm);
    return p == Precision::fp32 ? Tolerance{atol, 1e-5} : Tolerance{atol, 8e-3};
  };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["N"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["N"]);
    return Cost{(n + 1.0) * static_cast<double>(real_bytes(p)), 2.0 * n + 4.0};
  };
}
