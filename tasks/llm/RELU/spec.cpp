// RELU: output[i] = max(input[i], 0), elementwise.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "mskb/util/parallel.hpp"
#include "mskb/core/task.hpp"

namespace {
// Deterministic parallel fill for the large sweeps: chunk c of 65536 elements draws from its own
// stream, seeded from one draw of `rng`, so the data do not depend on the thread count.
template <class Fn>
void parallel_fill(std::size_t n, mskb::Rng& rng, Fn&& fn) {
  constexpr std::size_t kChunk = std::size_t{1} << 16;
  const uint64_t base = rng.next();
  const auto chunks = static_cast<int64_t>((n + kChunk - 1) / kChunk);
  mskb::parallel_for(
      chunks,
      [&](int64_t c) {
        mskb::Rng local(base ^ (static_cast<uint64_t>(c) * 0xd1b54a32d192ed03ULL));
        const std::size_t b = static_cast<std::size_t>(c) * kChunk, e = std::min(n, b + kChunk);
        for (std::size_t i = b; i < e; ++i) fn(local, i);
      },
      1);
}

// Mostly U(-5, 5); one element in 16 from U(-100, 100) (large magnitudes, as in the other activations).
void fill_activation_input(std::vector<double>& x, mskb::Rng& rng) {
  parallel_fill(x.size(), rng, [&](mskb::Rng& r, std::size_t i) {
    x[i] = (r.next() & 15u) == 0 ? r.uniform(-100.0, 100.0) : r.uniform(-5.0, 5.0);
  });
}
}  // namespace

MSKB_TASK(RELU) {
  using namespace mskb;
  spec.semantics =
      "output[i] = max(input[i], 0) for i in [0, N). input and output are device arrays of N elements (bf16 in the "
      "bf16 variant). N >= 1 and need not be a multiple of anything.";
  spec.vendor =
      "cuDNN: cudnnActivationForward(CUDNN_ACTIVATION_RELU) on a 1 x 1 x 1 x N NCHW tensor (fp32); bf16 the same with "
      "CUDNN_DATA_BFLOAT16 tensors, falling back to a cuDNN graph-API RELU_FWD pointwise op (FP32 math) if the legacy "
      "call rejects bf16";
  spec.params = {out("output"), in("input"), int_arg("N")};
  for (int e : {10, 12, 14, 16, 18}) spec.paper.push_back({{"N", int64_t{1} << e}});
  spec.heldout = {{{"N", 1}}, {{"N", 999}}, {{"N", 65537}}, {{"N", (1 << 18) + 3}}, {{"N", 3'000'017}}};
  spec.large = {{{"N", int64_t{1} << 24}}, {{"N", int64_t{1} << 26}}, {{"N", int64_t{1} << 28}}};
  spec.generate = [](const Shape& s, Precision, Rng& rng, Args& a) {
    const auto n = static_cast<std::size_t>(s["N"]);
    a[0].data.resize(n);
    a[1].data.resize(n);
    fill_activation_input(a[1].data, rng);
    a[1].data[0] = std::fabs(a[1].data[0]) + 0.5;  // a nonzero output even for N = 1
    a[2].value = static_cast<double>(n);
  };
  spec.reference = [](const Shape&, Precision, Args& a) {
    const std::vector<double>& x = a[1].data;
    std::vector<double>& y = a[0].data;
    parallel_for(static_cast<int64_t>(x.size()), [&](int64_t i) {
      const auto k = static_cast<std::size_t>(i);
      y[k] = x[k] > 0.0 ? x[k] : 0.0;
    });
  };
  // The result is an input value or zero: exact in both precisions.
  spec.tolerance = [](const Shape&, Precision) { return Tolerance{0.0, 0.0}; };
  spec.complexity = [](const Shape& s) { return static_cast<uint64_t>(s["N"]); };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["N"]);
    return Cost{2.0 * n * static_cast<double>(real_bytes(p)), n};
  };
}
