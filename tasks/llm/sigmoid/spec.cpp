// sigmoid: out[i] = 1 / (1 + exp(-input[i])), elementwise.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "mskb/util/parallel.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(sigmoid) {
  using namespace mskb;
  spec.semantics =
      "out[i] = 1 / (1 + exp(-input[i])) for i in [0, N). input and out are device arrays of N elements (bf16 "
      "in the bf16 variant). Inputs include large magnitudes (|x| up to 100), where exp overflows in FP32: the "
      "result must stay finite (0 or 1 in the limit). N >= 1.";
  spec.vendor =
      "CUB (CCCL): cub::DeviceTransform::Transform: one pass, y = 1 / (1 + exp(-x)) computed in FP32 by the call's "
      "functor (bf16 widened, one rounding). Rejected: cudnnActivationForward(SIGMOID), bf16 at ~0.4 of the "
      "bandwidth roofline on the H200. bf16: the functor uses __expf and __fdividef (a few FP32 ulp, far below the "
      "bf16 rounding): expf and an IEEE division held the bf16 call at 0.70 of the roofline (instruction-bound)";
  spec.params = {out("out"), in("input"), int_arg("N")};
  set_elementwise_sweeps(spec);
  // x: activation inputs (counter generator: drawn on the GPU by the verifier for large shapes, the CPU
  // twin elsewhere).
  set_activation_inputs(spec);
  spec.reference = [](const Shape&, Precision, Args& a) {
    map_elementwise(a[1].data, a[0].data, [](double v) { return 1.0 / (1.0 + std::exp(-v)); });
  };
  // FP32: expf (even __expf, 2 + 1.2|x| ulp) keeps ~1e-5 relative; results below FP32 range (x < -87) flush
  // to 0 within atol. BF16: two bf16 ulps.
  spec.tolerance = [](const Shape&, Precision p) { return p == Precision::fp32 ? Tolerance{1e-6, 1e-5} : Tolerance{1e-5, 8e-3}; };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["N"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["N"]);
    return Cost{2.0 * n * static_cast<double>(real_bytes(p)), 4.0 * n};
  };
}
