// RELU: output[i] = max(input[i], 0), elementwise.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "mskb/util/parallel.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(RELU) {
  using namespace mskb;
  spec.semantics =
      "output[i] = max(input[i], 0) for i in [0, N). input and output are device arrays of N elements (bf16 in the "
      "bf16 variant). N >= 1 and need not be a multiple of anything.";
  spec.vendor =
      "CUB (CCCL): cub::DeviceTransform::Transform: one pass, y = max(x, 0) computed in FP32 by the call's functor "
      "(bf16 widened, one rounding). Rejected: cudnnActivationForward(RELU), bf16 at ~0.4 of the bandwidth roofline "
      "on the H200";
  spec.params = {out("output"), in("input"), int_arg("N")};
  set_elementwise_sweeps(spec);
  // x: activation inputs (counter generator: drawn on the GPU by the verifier for large shapes, the CPU
  // twin elsewhere), x[0] from U(0.5, 5): a nonzero output even for N = 1.
  UniformRange x = kActivationInput;
  x.first_lo = 0.5;
  x.first_hi = 5.0;
  set_activation_inputs(spec, {}, x);
  spec.reference = [](const Shape&, Precision, Args& a) {
    map_elementwise(a[1].data, a[0].data, [](double v) { return v > 0.0 ? v : 0.0; });
  };
  // The result is an input value or zero: exact in both precisions.
  spec.tolerance = [](const Shape&, Precision) { return Tolerance{0.0, 0.0}; };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["N"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["N"]);
    return Cost{2.0 * n * static_cast<double>(real_bytes(p)), n};
  };
}
