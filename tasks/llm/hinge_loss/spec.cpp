// hinge_loss: per element, loss[i] = max(0, 1 - y_i * predictions[i]) with y_i = 2 * targets[i] - 1.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "mskb/util/parallel.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(hinge_loss) {
  using namespace mskb;
  spec.semantics =
      "Per element (no reduction): loss[i] = max(0, 1 - y * predictions[i]) with y = 2 * targets[i] - 1 (targets are "
      "0 or 1, so y is -1 or +1), for i in [0, N). predictions and loss are device arrays of N elements (bf16 in the "
      "bf16 variant); targets is an int array of N elements. The output has N elements. N >= 1.";
  spec.vendor =
      "CUB (CCCL): cub::DeviceTransform::Transform over (prediction, target): one pass, max(0, 1 - (2t - 1) p) in "
      "FP32 (bf16 widened, one rounding). Rejected: thrust::transform (the same operation through Thrust's older "
      "dispatch)";
  spec.params = {out("loss"), in("predictions"), in("targets", Elem::i32), int_arg("N")};
  set_elementwise_sweeps(spec);
  // Counter generator (drawn on the GPU by the verifier for large shapes, the CPU twin elsewhere):
  // predictions U(-2, 2), the first from U(-0.9, 0.9) (a positive loss even for N = 1); targets 0
  // or 1, each as likely.
  UniformRange predictions{-2.0, 2.0}, targets{0.0, 1.0};
  predictions.first_lo = -0.9;
  predictions.first_hi = 0.9;
  targets.integer = true;
  set_uniform_inputs(spec, {[](const Shape& s, Rng&, std::vector<std::size_t>& n, std::vector<double>& v) {
                              n[0] = n[1] = n[2] = static_cast<std::size_t>(s["N"]);
                              v[3] = static_cast<double>(s["N"]);
                            },
                            {{}, predictions, targets, {}}});
  spec.reference = [](const Shape&, Precision, Args& a) {
    const mskb::HostData& p = a[1].data;
    const mskb::HostData& t = a[2].data;
    mskb::HostData& y = a[0].data;
    parallel_for(static_cast<int64_t>(p.size()), [&](int64_t k) {
      const auto i = static_cast<std::size_t>(k);
      y[i] = std::max(0.0, 1.0 - (2.0 * t[i] - 1.0) * p[i]);
    });
  };
  // 1 - y * p with y = +-1 rounds once (exact in FP32 for bf16 predictions); BF16 rounds the result once more.
  spec.tolerance = [](const Shape&, Precision p) { return p == Precision::fp32 ? Tolerance{1e-7, 1e-6} : Tolerance{1e-5, 8e-3}; };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["N"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["N"]);
    return Cost{n * (2.0 * static_cast<double>(real_bytes(p)) + 4.0), 3.0 * n};
  };
}
