// silu_and_mul: out[b, j] = silu(in[b, j]) * in[b, D + j] for an input of B rows of 2D values.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "mskb/util/parallel.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(silu_and_mul) {
  using namespace mskb;
  spec.semantics =
      "in is a B x 2D row-major device array, out a B x D one (bf16 in the bf16 variant). For every row b and j in "
      "[0, D): out[b*D + j] = silu(g) * v with g = in[b*2D + j] (the first half of the row), v = in[b*2D + D + j] (the "
      "second half), silu(g) = g / (1 + exp(-g)). Gates include outliers up to |g| = 100, where exp overflows in FP32: "
      "the result must stay finite. B, D >= 1; D need not be a multiple of anything.";
  spec.vendor = "";
  spec.vendor_none_reason =
      "no vendor library has it (vLLM ships its own silu_and_mul kernel); the gate and value halves of each row are "
      "not contiguous sequences, so a library elementwise call would need the row indexing written by hand";
  spec.params = {in("in"), out("out"), int_arg("B"), int_arg("D")};
  for (int64_t b : {16, 32, 64})
    for (int64_t d : {4096, 5120, 8192, 12288}) spec.paper.push_back({{"B", b}, {"D", d}});
  spec.heldout = {{{"B", 1}, {"D", 1}},      {{"B", 3}, {"D", 1001}},   {{"B", 7}, {"D", 4097}},
                  {{"B", 100}, {"D", 5000}}, {{"B", 16}, {"D", 14336}}, {{"B", 128}, {"D", 28672}}};
  spec.large = {{{"B", 4096}, {"D", 14336}}, {{"B", 8192}, {"D", 14336}}, {{"B", 16384}, {"D", 14336}}};
  // Counter generator (drawn on the GPU by the verifier for large shapes, the CPU twin elsewhere). Gates
  // (first half of each row): activation inputs, mostly U(-5, 5), one in 16 an outlier from U(-100,
  // 100) where an unguarded exp(-g) overflows; in[0] from U(0.5, 5) (a non-trivial output even for B =
  // D = 1). Values (second half): U(-2, 2).
  UniformRange gates = kActivationInput;
  gates.first_lo = 0.5;
  gates.first_hi = 5.0;
  set_uniform_inputs(spec, {[](const Shape& s, Rng&, std::vector<std::size_t>& n, std::vector<double>& v) {
                              const auto rows = static_cast<std::size_t>(s["B"]), d = static_cast<std::size_t>(s["D"]);
                              n[0] = rows * 2 * d;
                              n[1] = rows * d;
                              v[2] = static_cast<double>(rows);
                              v[3] = static_cast<double>(d);
                            },
                            {gates, {}, {}, {}},
                            [gates](const Shape& s, std::vector<UniformRange>& r) {
                              const auto d = static_cast<uint64_t>(s["D"]);
                              r[0] = row_halves(gates, 2 * d, d, -2.0, 2.0);
                            }});
  spec.reference = [](const Shape& s, Precision, Args& a) {
    const auto d = static_cast<std::size_t>(s["D"]);
    const mskb::HostData& x = a[0].data;
    mskb::HostData& y = a[1].data;
    parallel_for(static_cast<int64_t>(y.size()), [&](int64_t k) {
      const auto idx = static_cast<std::size_t>(k);
      const std::size_t b = idx / d, j = idx % d;
      const double g = x[b * 2 * d + j], v = x[b * 2 * d + d + j];
      y[idx] = g / (1.0 + std::exp(-g)) * v;
    });
  };
  // FP32: expf (even __expf) and three roundings keep ~1e-5 relative; products that fall below the FP32
  // range (g < -87) flush to 0 within atol. BF16: FP32 math rounded once, two bf16 ulps.
  spec.tolerance = [](const Shape&, Precision p) { return p == Precision::fp32 ? Tolerance{1e-6, 1e-5} : Tolerance{1e-5, 8e-3}; };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["B"]) * static_cast<uint64_t>(s["D"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["B"]) * static_cast<double>(s["D"]);
    return Cost{3.0 * n * static_cast<double>(real_bytes(p)), 5.0 * n};
  };
}
