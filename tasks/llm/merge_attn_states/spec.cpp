// merge_attn_states: merges two partial attention results (values + log-sum-exp) computed over disjoint
// key sets into the result over their union (the standard log-sum-exp merge).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "mskb/core/counter_rng.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/util/parallel.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(merge_attn_states) {
  using namespace mskb;
  spec.semantics =
      "Merge of two partial attention states. V_a, V_b, V_out are [num_tokens, num_heads, head_size] row-major; "
      "lse_a, lse_b, LSE_out are [num_heads, num_tokens]. For token t and head h with a = lse_a[h][t], "
      "b = lse_b[h][t]: m = max(a, b), wa = exp(a - m), wb = exp(b - m), "
      "V_out[t][h][:] = (V_a[t][h][:] * wa + V_b[t][h][:] * wb) / (wa + wb), LSE_out[h][t] = m + log(wa + wb). "
      "The LSEs are finite but may differ by far more than 88 (exp of the raw difference overflows float). bf16 "
      "variant: every tensor (LSEs included) is bf16.";
  spec.vendor = "";
  spec.vendor_none_reason =
      "the merge lives in vLLM / FlashInfer (merge_state), not in cuBLAS, cuDNN or CCCL";
  spec.params = {out("V_out"), out("LSE_out"),        in("V_a"),          in("lse_a"),       in("V_b"),
                 in("lse_b"),  int_arg("num_tokens"), int_arg("num_heads"), int_arg("head_size")};
  for (int64_t t : {512, 768, 1024})
    for (int64_t h : {32, 64})
      for (int64_t d : {128, 256}) spec.paper.push_back({{"num_tokens", t}, {"num_heads", h}, {"head_size", d}});
  spec.heldout = {{{"num_tokens", 1}, {"num_heads", 1}, {"head_size", 1}},
                  {{"num_tokens", 7}, {"num_heads", 3}, {"head_size", 5}},
                  {{"num_tokens", 1000}, {"num_heads", 40}, {"head_size", 96}},
                  {{"num_tokens", 513}, {"num_heads", 17}, {"head_size", 300}},
                  {{"num_tokens", 3}, {"num_heads", 128}, {"head_size", 512}},
                  {{"num_tokens", 2049}, {"num_heads", 8}, {"head_size", 64}}};
  spec.large = {{{"num_tokens", 8192}, {"num_heads", 64}, {"head_size", 128}},
                {{"num_tokens", 16384}, {"num_heads", 32}, {"head_size", 256}},
                {{"num_tokens", 32768}, {"num_heads", 64}, {"head_size", 128}}};
  // Counter generator (drawn on the GPU by the verifier for large shapes, the CPU twin elsewhere):
  // values U(-2, 2); lse_a U(-100, 100); lse_b paired with lse_a: about 80% of (head, token) pairs
  // independent from U(-100, 100) (differences up to 200: exp of the raw difference overflows), 10%
  // equal to lse_a (ties), 10% lse_a + U(-1, 1).
  const UniformRange values{-2.0, 2.0}, lse{-100.0, 100.0};
  set_uniform_inputs(spec, {[](const Shape& s, Rng&, std::vector<std::size_t>& n, std::vector<double>& v) {
                              const auto t = static_cast<std::size_t>(s["num_tokens"]), h = static_cast<std::size_t>(s["num_heads"]),
                                         d = static_cast<std::size_t>(s["head_size"]);
                              n[0] = n[2] = n[4] = t * h * d;
                              n[1] = n[3] = n[5] = h * t;
                              v[6] = static_cast<double>(t);
                              v[7] = static_cast<double>(h);
                              v[8] = static_cast<double>(d);
                            },
                            {{}, {}, values, lse, values, paired_draws(-100.0, 100.0, 3, -1.0, 1.0), {}, {}, {}}});
  spec.reference = [](const Shape& s, Precision, Args& a) {
    const int64_t t = s["num_tokens"], h = s["num_heads"], d = s["head_size"];
    parallel_for(t, [&](int64_t ti) {
      for (int64_t hi = 0; hi < h; ++hi) {
        const auto l = static_cast<std::size_t>(hi * t + ti);
        const double la = a[3].data[l], lb = a[5].data[l];
        const double m = std::max(la, lb);
        const double wa = std::exp(la - m), wb = std::exp(lb - m), sum = wa + wb;
        a[1].data[l] = m + std::log(sum);
        for (int64_t k = 0; k < d; ++k) {
          const auto v = static_cast<std::size_t>((ti * h + hi) * d + k);
          a[0].data[v] = (a[2].data[v] * wa + a[4].data[v] * wb) / sum;
        }
      }
    }, 16);
  };
  // V_out is a convex combination of values in (-2, 2); LSE_out lies in (-100, 101). FP32: the weights carry
  // ~1e-6 relative error (the float difference a - m, expf), LSE_out one float rounding. BF16: one rounding
  // of each output (2^-9 relative; 0.25 absolute for an LSE of 64..128, inside 1e-2 * |LSE|).
  spec.tolerance = [](const Shape&, Precision p) {
    return p == Precision::fp32 ? Tolerance{2e-6, 1e-5} : Tolerance{1e-2, 1e-2};
  };
  spec.complexity = [](const Shape& s) {
    return static_cast<uint64_t>(s["num_tokens"]) * static_cast<uint64_t>(s["num_heads"]) * static_cast<uint64_t>(s["head_size"]);
  };
  spec.cost = [](const Shape& s, Precision p) {
    const double th = static_cast<double>(s["num_tokens"]) * static_cast<double>(s["num_heads"]);
    const double n = th * static_cast<double>(s["head_size"]);
    return Cost{(3.0 * n + 3.0 * th) * static_cast<double>(real_bytes(p)), 3.0 * n + 6.0 * th};
  };
}
