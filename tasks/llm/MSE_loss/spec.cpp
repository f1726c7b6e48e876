// MSE_loss: loss = mean over i of (X[i] - Y[i])^2 (a scalar; the harness zeroes loss before each call).
#include <algorithm>
#include <cmath>
#include <vector>

#include "mskb/util/parallel.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(MSE_loss) {
  using namespace mskb;
  spec.semantics =
      "loss[0] = (1/N) * sum over i in [0, N) of (X[i] - Y[i])^2: the mean of the squared differences. X and Y are "
      "device arrays of N elements (bf16 in the bf16 variant); loss is ONE float in both precisions (float* even in "
      "the bf16 variant). loss is zeroed by the caller before each call and must hold the full mean afterwards "
      "(atomics allowed). N >= 1.";
  spec.vendor =
      "CUB: cub::DeviceReduce::TransformReduce over a counting iterator, transform (X[i] - Y[i])^2 * (1/N) in FP32 "
      "(bf16 inputs converted to float), cuda::std::plus, result written straight into loss. Under 0.8 of the bandwidth roofline at the large sweep's largest shape (H200, 4aae2a5): bf16 0.79 "
      "(fp32 1.01): the bf16 call moves half the fp32 call's bytes in 0.64x its time, so it is bound by the "
      "element rate of CUB's transform-iterator reads (2-byte loads, not vectorised), not by bandwidth; no "
      "library reduction reads bf16 pairs into an FP32 sum faster";
  spec.params = {accumulate("loss", Elem::f32), in("X"), in("Y"), int_arg("N")};
  set_elementwise_sweeps(spec);
  // X and Y uniform in [-1, 1), drawn by the counter generator: on the GPU by the verifier for
  // large shapes (reference.cu computes the mean there, in this reference's order), its CPU twin
  // elsewhere.
  set_uniform_inputs(spec, {[](const Shape& s, Rng&, std::vector<std::size_t>& n, std::vector<double>& v) {
                              n[0] = 1;
                              n[1] = n[2] = static_cast<std::size_t>(s["N"]);
                              v[3] = static_cast<double>(s["N"]);
                            },
                            {{}, {-1.0, 1.0}, {-1.0, 1.0}, {}}});
  spec.reference = [](const Shape& s, Precision, Args& a) {
    const int64_t n = s["N"];
    const double *x = a[1].data.data(), *y = a[2].data.data();
    // FP64 chunked sums added in a fixed order: the same whatever the thread count (reference.cu
    // takes the same sums in the same order on the GPU).
    const double sum = chunked_sum(n, [x, y](int64_t i) {
      const double d = x[i] - y[i];
      return d * d;
    });
    a[0].data[0] = sum / static_cast<double>(n);
  };
  // Squared differences of U(-1,1) values: terms in [0, 4], mean ~2/3. FP32 summation in any sane order
  // (tree, per-block atomics, one atomic per element at paper sizes) stays within sqrt(N) * 2^-24 * 4 of the
  // mean; reducing only part of the input (a block, a fixed grid) or accumulating in bf16 is far off. Both
  // precisions compute in FP32 from exactly representable inputs and write a float: one tolerance.
  spec.tolerance = [](const Shape& s, Precision) {
    const double n = static_cast<double>(s["N"]);
    return Tolerance{4.0 * std::sqrt(n) * 0x1.0p-24, 1e-5};
  };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["N"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["N"]);
    return Cost{2.0 * n * static_cast<double>(real_bytes(p)) + 4.0, 3.0 * n};
  };
}
