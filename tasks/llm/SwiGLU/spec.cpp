// SwiGLU: output[i] = g * sigmoid(beta * g) * v with g = gate_input[i], v = value_input[i].
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "mskb/util/parallel.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(SwiGLU) {
  using namespace mskb;
  spec.semantics =
      "output[i] = g * sigmoid(beta * g) * v with g = gate_input[i], v = value_input[i], sigmoid(z) = 1 / (1 + exp(-z)), "
      "for i in [0, N). gate_input, value_input and output are device arrays of N elements (bf16 in the bf16 variant); "
      "beta is a float in both precisions (the harness passes 1.0). Gates include outliers up to |g| = 100, where "
      "exp overflows in FP32: the result must stay finite. N >= 1.";
  spec.vendor = "";
  spec.vendor_none_reason =
      "no vendor library has a SwiGLU op (cuBLAS / cuDNN do not; vLLM and FlashInfer ship their own activation "
      "kernels); a CUB DeviceTransform with the formula as its functor would be the same elementwise route as the "
      "activation tasks', not a library implementation of SwiGLU";
  spec.params = {out("output"), in("gate_input"), in("value_input"), float_arg("beta"), int_arg("N")};
  set_elementwise_sweeps(spec);
  // Counter generator (drawn on the GPU by the verifier for large shapes, the CPU twin elsewhere):
  // gates are activation inputs, with outliers where an unguarded exp(beta * g) overflows; values
  // U(-2, 2); beta = 1, the published value.
  set_uniform_inputs(spec, {[](const Shape& s, Rng&, std::vector<std::size_t>& n, std::vector<double>& v) {
                              n[0] = n[1] = n[2] = static_cast<std::size_t>(s["N"]);
                              v[3] = 1.0;
                              v[4] = static_cast<double>(s["N"]);
                            },
                            {{}, kActivationInput, {-2.0, 2.0}, {}, {}}});
  spec.reference = [](const Shape&, Precision, Args& a) {
    const mskb::HostData& g = a[1].data;
    const mskb::HostData& v = a[2].data;
    mskb::HostData& y = a[0].data;
    const double beta = a[3].value;
    parallel_for(static_cast<int64_t>(g.size()), [&](int64_t k) {
      const auto i = static_cast<std::size_t>(k);
      y[i] = g[i] / (1.0 + std::exp(-beta * g[i])) * v[i];
    });
  };
  // FP32: expf (even __expf) and three roundings keep ~1e-5 relative; products that fall below the FP32
  // range (g < -87) flush to 0 within atol. BF16: FP32 math rounded once, two bf16 ulps.
  spec.tolerance = [](const Shape&, Precision p) { return p == Precision::fp32 ? Tolerance{1e-6, 1e-5} : Tolerance{1e-5, 8e-3}; };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["N"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["N"]);
    return Cost{3.0 * n * static_cast<double>(real_bytes(p)), 6.0 * n};
  };
}
