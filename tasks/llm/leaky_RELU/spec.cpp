// leaky_RELU: output[i] = input[i] > 0 ? input[i] : alpha * input[i], elementwise.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "mskb/util/parallel.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(leaky_RELU) {
  using namespace mskb;
  spec.semantics =
      "output[i] = input[i] if input[i] > 0, else alpha * input[i], for i in [0, N). input and output are "
      "device arrays of N elements (bf16 in the bf16 variant); alpha is a float in both precisions (the harness "
      "passes 0.01, the published default). N >= 1 and need not be a multiple of anything.";
  spec.vendor =
      "CUB (CCCL): cub::DeviceTransform::Transform: one pass, y = x > 0 ? x : alpha x computed in FP32 by the call's "
      "functor (bf16 widened, one rounding). Rejected: the cuDNN graph API's RELU_FWD pointwise op with a "
      "lower-clip slope, bf16 at ~0.4 of the bandwidth roofline on the H200";
  spec.params = {out("output"), in("input"), int_arg("N"), float_arg("alpha")};
  set_elementwise_sweeps(spec);
  // x: activation inputs (counter generator: drawn on the GPU by the verifier for large shapes, the CPU
  // twin elsewhere); alpha = 0.01, the published default, passed explicitly.
  set_activation_inputs(spec, {0.01});
  spec.reference = [](const Shape&, Precision, Args& a) {
    const double alpha = a[3].value;  // 0.01 rounded to float, as the kernel sees it
    map_elementwise(a[1].data, a[0].data, [&](double v) { return v > 0.0 ? v : alpha * v; });
  };
  // One product rounded to the output type (alpha is the float-rounded value the kernel receives).
  spec.tolerance = [](const Shape&, Precision p) {
    return p == Precision::fp32 ? Tolerance{1e-12, 1e-6} : Tolerance{1e-12, 8e-3};
  };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["N"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["N"]);
    return Cost{2.0 * n * static_cast<double>(real_bytes(p)), 2.0 * n};
  };
}
