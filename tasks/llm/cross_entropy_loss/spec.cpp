// cross_entropy_loss: loss = -sum_i Y[i] * log(max(X[i], 1e-8)) over two probability vectors of length C.
#include <algorithm>
#include <cmath>
#include <vector>

#include "mskb/util/parallel.hpp"
#include "mskb/core/task.hpp"

namespace {
// U(0, 1) draws normalised to sum to 1.
void fill_distribution(mskb::HostData& p, mskb::Rng& rng) {
  rng.fill_uniform(p, 0.0, 1.0);
  double* q = p.data();
  const auto n = static_cast<int64_t>(p.size());
  const double sum = mskb::chunked_sum(n, [q](int64_t i) { return q[i]; });  // fixed order: thread-count independent
  mskb::parallel_blocks(n, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) q[i] /= sum;
  });
}
}  // namespace

MSKB_TASK(cross_entropy_loss) {
  using namespace mskb;
  spec.semantics =
      "loss[0] = -sum over i in [0, C) of Y[i] * log(max(X[i], 1e-8f)) (natural log). X (predicted probabilities) and "
      "Y (target distribution) are device arrays of C elements (bf16 in the bf16 variant), each a normalised U(0,1) "
      "vector summing to 1; for large C many X[i] fall below 1e-8, so the clamp matters. loss is ONE float in both "
      "precisions (float* even in the bf16 variant), zeroed by the caller before each call; it must hold the full sum "
      "afterwards (atomics allowed). C >= 1.";
  spec.vendor =
      "CUB: cub::DeviceReduce::TransformReduce over a counting iterator, transform -Y[i] * logf(fmaxf(X[i], 1e-8f)) in "
      "FP32 (bf16 inputs converted to float), cuda::std::plus, result written straight into loss. Under 0.8 of the bandwidth roofline at the large sweep's largest shape (H200, 4aae2a5): bf16 0.67 "
      "(fp32 0.95): the bf16 call takes 0.71x the fp32 call's time for half its bytes, bound by the element "
      "rate of CUB's transform-iterator reads (2-byte loads) plus a logf per element, not by bandwidth";
  spec.params = {accumulate("loss", Elem::f32), in("X"), in("Y"), int_arg("C")};
  for (int e : {14, 16, 18, 20, 22}) spec.paper.push_back({{"C", int64_t{1} << e}});
  spec.heldout = {{{"C", 3}}, {{"C", 1000}}, {{"C", 65537}}, {{"C", 1'000'003}}, {{"C", (1 << 22) + 3}}, {{"C", 5'000'011}}};
  spec.large = {{{"C", int64_t{1} << 24}}, {{"C", int64_t{1} << 26}}, {{"C", int64_t{1} << 27}}};
  spec.generate = [](const Shape& s, Precision, Rng& rng, Args& a) {
    const auto c = static_cast<std::size_t>(s["C"]);
    a[0].data.resize(1);
    a[1].data.resize(c);
    a[2].data.resize(c);
    fill_distribution(a[1].data, rng);
    fill_distribution(a[2].data, rng);
    a[3].value = static_cast<double>(c);
  };
  spec.reference = [](const Shape& s, Precision, Args& a) {
    const int64_t n = s["C"];
    const double floor_x = static_cast<double>(1e-8f);  // the clamp as an FP32 kernel applies it
    const double *x = a[1].data.data(), *y = a[2].data.data();
    // FP64 chunked sums added in a fixed order: the same whatever the thread count.
    const double sum = chunked_sum(n, [x, y, floor_x](int64_t i) { return y[i] * std::log(std::max(x[i], floor_x)); });
    a[0].data[0] = -sum;
  };
  // The loss is about log(C/2) + 1 (10 to 20); C terms of ~15 * 2/C each. Tree orders and block sums
  // added by atomics stay within sqrt(C) * 2^-24 * 16. One sequential FP32 accumulator over all C terms
  // (a single thread, or one atomicAdd per element) adds terms that approach the ulp of its running sum
  // and comes out biased: ~6e-5 relative (8.6e-4 absolute, up to 1.3e-3) at C = 2^20, where it exceeded
  // that bound in 1 of 6 seeds; u min(C, 2^20) / 32 more covers it up to C = 2^20 (worst 0.43). Beyond
  // 2^20 it is not covered: at 2^22 it errs by 1e-3 relative, as much as dropping the clamp. Dropping
  // the clamp (|log X| grows past 18.4 for the 0.5% (C = 2^20) to 2% (2^22) of X below 1e-8) stays 1.7x
  // (2^20) and 5x (2^22) outside, reducing only part of the input far outside. Both precisions compute
  // in FP32 from exactly representable inputs and write a float: one tolerance.
  spec.tolerance = [](const Shape& s, Precision) {
    const double c = static_cast<double>(s["C"]);
    const double m = std::min(c, 1048576.0);
    return Tolerance{16.0 * std::sqrt(c) * 0x1.0p-24 + 0x1.0p-24 * m / 32.0, 1e-5};
  };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["C"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double c = static_cast<double>(s["C"]);
    return Cost{2.0 * c * static_cast<double>(real_bytes(p)) + 4.0, 4.0 * c};
  };
}
