// triangle_attention: the paper's NON-standard causal attention. Every dimension d is its own
// one-dimensional attention: score(i, j, d) = q[i][d] * k[j][d] / sqrt(head_dim) (no dot product over d),
// softmax over the keys j <= i, out[i][d] = sum_j p(i, j, d) * v[j][d].
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "mskb/util/parallel.hpp"
#include "mskb/core/task.hpp"

namespace {
mskb::Shape shape(int64_t b, int64_t h, int64_t s, int64_t d) { return mskb::Shape{{"b", b}, {"h", h}, {"s", s}, {"d", d}}; }
}  // namespace

MSKB_TASK(triangle_attention) {
  using namespace mskb;
  spec.semantics =
      "Per-dimension causal attention (NOT standard attention). query, key, value and output are "
      "[batch_size, head_num, seq_length, head_dim] row-major. For every (b, h), position i and dimension d: "
      "score(j) = query[b][h][i][d] * key[b][h][j][d] / sqrt(head_dim) for j in [0, i] (no sum over d); "
      "p(j) = exp(score(j)) / sum_{j' <= i} exp(score(j')); output[b][h][i][d] = sum_{j <= i} p(j) * value[b][h][j][d]. "
      "attention_mask is batch_size x seq_length x seq_length float (1.0 where j > i, else 0.0) in both precisions "
      "and only restates the causal rule. Some scores exceed 88 (exp overflows float unless the maximum over "
      "j <= i is subtracted). bf16 variant: query, key, value, output are bf16; the mask stays float.";
  spec.vendor = "";
  spec.vendor_none_reason =
      "per-dimension causal attention is not scaled dot-product attention (no sum over the head dimension), so no "
      "cuDNN SDPA / FlashAttention or GEMM route computes it";
  spec.params = {in("query"),           in("key"),          in("value"),             in("attention_mask", Elem::f32), out("output"),
                 int_arg("batch_size"), int_arg("head_num"), int_arg("seq_length"), int_arg("head_dim")};
  spec.paper = {shape(1, 32, 512, 128), shape(1, 96, 256, 128), shape(1, 48, 1024, 128), shape(2, 16, 256, 256),
                shape(2, 64, 512, 128), shape(4, 8, 32, 128),   shape(4, 32, 512, 128),  shape(8, 16, 512, 128)};
  spec.heldout = {shape(1, 1, 1, 1),    shape(1, 2, 5, 3),   shape(2, 3, 100, 48),
                  shape(3, 2, 77, 520), shape(1, 4, 1500, 64), shape(1, 1, 2049, 16)};
  spec.large = {shape(1, 64, 2048, 128), shape(4, 32, 1024, 256), shape(2, 16, 4096, 64)};
  // key ~ U(-4, 4); value ~ U(0.2, 1.8) (outputs, convex combinations of values, stay >= 0.2). Query rows
  // (b, h, i) are U(-4, 4) (scores within +-16 / sqrt(head_dim)), except the last row of every head and one
  // row in 8, which are +-40 * sqrt(head_dim) * U(0.5, 1): their scores reach ~100 and beyond, where exp
  // overflows float unless the maximum is subtracted.
  spec.generate = [](const Shape& sh, Precision, Rng& rng, Args& a) {
    const auto b = static_cast<std::size_t>(sh["b"]), h = static_cast<std::size_t>(sh["h"]), s = static_cast<std::size_t>(sh["s"]),
               d = static_cast<std::size_t>(sh["d"]);
    const std::size_t n = b * h * s * d, rows = b * h * s;
    a[0].data.resize(n);
    a[1].data.resize(n);
    a[2].data.resize(n);
    rng.fill_uniform(a[0].data, -4.0, 4.0);
    rng.fill_uniform(a[1].data, -4.0, 4.0);
    rng.fill_uniform(a[2].data, 0.2, 1.8);
    const double big = 40.0 * std::sqrt(static_cast<double>(d));
    for (std::size_t r = 0; r < rows; ++r) {
      const bool large = r % s == s - 1 || (rng.next() & 7u) == 0;
      if (!large) continue;
      for (std::size_t k = 0; k < d; ++k) {
        const double mag = big * rng.uniform(0.5, 1.0);
        a[0].data[r * d + k] = (rng.next() & 1u) ? mag : -mag;
      }
    }
    a[3].data.resize(b * s * s);
    for (std::size_t bb = 0; bb < b; ++bb)
      for (std::size_t i = 0; i < s; ++i)
        for (std::size_t j = 0; j < s; ++j) a[3].data[(bb * s + i) * s + j] = j > i ? 1.0 : 0.0;
    a[4].data.resize(n);
    a[5].value = static_cast<double>(b);
    a[6].value = static_cast<double>(h);
    a[7].value = static_cast<double>(s);
    a[8].value = static_cast<double>(d);
  };
  // Operation order shared with reference.cu (the FP64 GPU reference): s_j = (q * k) * scale; max over
  // j <= i; e_j = exp(s_j - max); sum and weighted sum accumulated over j in order; out = acc / sum.
  spec.reference = [](const Shape& sh, Precision, Args& a) {
    const int64_t bh = sh["b"] * sh["h"], s = sh["s"], d = sh["d"];
    const double scale = 1.0 / std::sqrt(static_cast<double>(d));
    const mskb::HostData& q = a[0].data;
    const mskb::HostData& k = a[1].data;
    const mskb::HostData& v = a[2].data;
    mskb::HostData& out = a[4].data;
    parallel_for(bh * s, [&](int64_t row) {
      const int64_t head = row / s, i = row % s;
      const std::size_t base = static_cast<std::size_t>(head * s * d);
      for (int64_t c = 0; c < d; ++c) {
        const double qi = q[static_cast<std::size_t>(row * d + c)];
        double m = -HUGE_VAL;
        for (int64_t j = 0; j <= i; ++j) m = std::max(m, qi * k[base + static_cast<std::size_t>(j * d + c)] * scale);
        double sum = 0.0, acc = 0.0;
        for (int64_t j = 0; j <= i; ++j) {
          const std::size_t at = base + static_cast<std::size_t>(j * d + c);
          const double e = std::exp(qi * k[at] * scale - m);
          sum += e;
          acc += e * v[at];
        }
        out[static_cast<std::size_t>(row * d + c)] = acc / sum;
      }
    }, 4);
  };
  // Outputs lie in (0.2, 1.8). FP32: a float score q*k/sqrt(d) of ~100 carries ~1e-5 absolute error, which
  // moves the weights of the large rows by ~1e-5 relative; sums over up to ~2000 keys add ~1e-6.
  // BF16: one output rounding (2^-9 relative).
  spec.tolerance = [](const Shape&, Precision p) {
    return p == Precision::fp32 ? Tolerance{5e-5, 2e-5} : Tolerance{1e-2, 1e-2};
  };
  spec.complexity = [](const Shape& sh) {
    return static_cast<uint64_t>(sh["b"]) * static_cast<uint64_t>(sh["h"]) * static_cast<uint64_t>(sh["s"]) *
           static_cast<uint64_t>(sh["s"]) * static_cast<uint64_t>(sh["d"]);
  };
  spec.cost = [](const Shape& sh, Precision p) {
    const double n = static_cast<double>(sh["b"]) * static_cast<double>(sh["h"]) * static_cast<double>(sh["s"]) *
                     static_cast<double>(sh["d"]);
    const double s = static_cast<double>(sh["s"]);
    // q, k, v read and output written once; the mask is not needed. ~s/2 keys per output, ~6 flops each.
    return Cost{4.0 * n * static_cast<double>(real_bytes(p)), 3.0 * n * (s + 1.0)};
  };
}
