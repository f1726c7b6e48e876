// Shared by the integration tasks monte_carlo_int and simpson_int (header-only, included by their
// spec.cpp and reference.cu as "../common/integration.hpp"; this folder has no spec.cpp, so CMake
// does not treat it as a task). Both take (y_samples, result, a, b, N): their inputs, the error
// budget of an FP32 sum that scales their tolerances, and simpson_int's sample weights, which its
// CPU reference (spec.cpp) and its device reference (reference.cu, compiled by nvcc) share.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "mskb/core/counter_rng.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

namespace mskb::integration {

inline constexpr double kMaxTerm = 10.0;     // |y| <= 10
inline constexpr double kMaxWidth = 2000.0;  // b - a <= 2000

// Samples U(-10, 10); the interval [a, b] inside [-1000, 1000) with b - a >= 1 (two U(-1000, 1000)
// draws, redrawn while closer than 1, sorted). The samples are drawn by the counter generator (on
// the GPU by the verifier for large shapes, its CPU twin elsewhere); a and b come first from the
// instance's generator.
inline void set_integration_inputs(TaskSpec& spec) {
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
}

// Error budget of an FP32 sum of n zero-mean terms of magnitude <= term (u = 2^-24): 64 sqrt(n) term u
// for tree-like sums plus a linear 3 term u n for one sequential FP32 accumulator (a single thread, or
// one atomicAdd per sample), whose partial sums are a random walk. Each task's tolerance says what
// such sums of its terms err by.
inline double sum_budget(double n, double term) { return std::ldexp(1.0, -24) * term * (64.0 * std::sqrt(n) + 3.0 * n); }

// simpson_int: the weight of sample i of n in units of h/12 (see its semantics): 4,16,8,...,16,4 for
// odd n; for even n the same over samples 0..n-2, then the last interval's parabola through the last
// three samples adds (-1, 8, 5) to samples n-3, n-2, n-1 (SciPy >= 1.11 simpson for even n,
// Cartwright's correction). Small integers: exact in FP64, on the host and the device alike.
MSKB_HD inline double simpson_weight12(int64_t i, int64_t n) {
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

}  // namespace mskb::integration
