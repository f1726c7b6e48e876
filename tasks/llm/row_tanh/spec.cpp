// row_tanh: out[i] = tanh(input[i]), plain elementwise tanh.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "mskb/util/parallel.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(row_tanh) {
  using namespace mskb;
  spec.semantics =
      "out[i] = tanh(input[i]) for i in [0, N): a plain elementwise tanh (despite the name, no rows). input "
      "and out are device arrays of N elements (bf16 in the bf16 variant). Inputs include large magnitudes (|x| "
      "up to 100), where exp(2x) overflows in FP32: the result must be +-1 there, not NaN. N >= 1.";
  spec.vendor =
      "CUB (CCCL): cub::DeviceTransform::Transform: one pass, y = tanh(x) computed in FP32 by the call's functor "
      "(bf16 widened, one rounding). Rejected: cudnnActivationForward(TANH), bf16 at ~0.4 of the bandwidth roofline "
      "on the H200. bf16: the functor uses 1 - 2 / (e^2x + 1) with __expf and __fdividef (error ~1e-7, far below the "
      "bf16 rounding): tanhf held the bf16 call at 0.76 of the roofline (instruction-bound)";
  spec.params = {out("out"), in("input"), int_arg("N")};
  set_elementwise_sweeps(spec);
  // x: activation inputs (counter generator: drawn on the GPU by the verifier for large shapes, the CPU
  // twin elsewhere).
  set_activation_inputs(spec);
  spec.reference = [](const Shape&, Precision, Args& a) {
    map_elementwise(a[1].data, a[0].data, [](double v) { return std::tanh(v); });
  };
  // FP32: tanhf is within a few ulp; formulas like 1 - 2/(exp(2x)+1) lose relative accuracy near 0 but stay
  // within ~1e-7 absolute. BF16: two bf16 ulps.
  spec.tolerance = [](const Shape&, Precision p) { return p == Precision::fp32 ? Tolerance{1e-6, 1e-5} : Tolerance{1e-5, 8e-3}; };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["N"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["N"]);
    return Cost{2.0 * n * static_cast<double>(real_bytes(p)), 4.0 * n};
  };
}
