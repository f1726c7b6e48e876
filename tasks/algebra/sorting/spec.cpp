// sorting: sort data[0..N) ascending, in place.
#include <algorithm>
#include <cmath>

#include "mskb/core/counter_rng.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/util/parallel.hpp"
#include "mskb/core/task.hpp"

MSKB_TASK(sorting) {
  using namespace mskb;
  spec.semantics =
      "Sorts data[0..N) in place in ascending order (data is both input and output). Keys are finite (no NaN, no "
      "infinities) and include negative numbers, zeros and many duplicates; N is any positive integer (not only "
      "powers of two). The result must equal the sorted input exactly.";
  spec.vendor =
      "CUB: cub::DeviceRadixSort::SortKeys with a DoubleBuffer (float keys; bf16 keys sorted as __nv_bfloat16, "
      "which CUB's radix sort supports natively), copied back if the result lands in the alternate buffer";
  spec.params = {inplace("data"), int_arg("N")};
  for (int e = 8; e <= 16; e += 2) spec.paper.push_back({{"N", int64_t{1} << e}});
  spec.heldout = {{{"N", 1}},      {{"N", 2}},      {{"N", 3}},          {{"N", 1000}},
                  {{"N", 65537}},  {{"N", 100003}}, {{"N", (1 << 20) + 7}}, {{"N", 5'000'001}}};
  spec.large = {{{"N", int64_t{1} << 24}}, {{"N", int64_t{1} << 26}}, {{"N", int64_t{1} << 28}}};
  // Counter generator (drawn on the GPU by the verifier for large shapes, the CPU twin elsewhere), a
  // mix: 25% small integers in [-8, 8] (duplicates and exact zeros), 25% U(-1, 1), 50% signed
  // magnitudes spread log-uniformly over [2^-10, 2^14) (about 1e-3 to 1.6e4: an exponent uniform in
  // [-10, 13], a mantissa uniform in [1, 2)). No NaN, infinities, -0 or subnormals (whose order a
  // flush-to-zero kernel may not keep).
  set_uniform_inputs(spec, {[](const Shape& s, Rng&, std::vector<std::size_t>& e, std::vector<double>& v) {
                              e[0] = static_cast<std::size_t>(s["N"]);
                              v[1] = static_cast<double>(s["N"]);
                            },
                            {key_draws(-8.0, 8.0, -1.0, 1.0, -10.0, 13.0), {}}});
  // Parallel merge sort: sorted chunks, then rounds of pairwise in-place merges (2^28 keys in seconds).
  spec.reference = [](const Shape&, Precision, Args& a) {
    mskb::HostData& v = a[0].data;
    const int64_t n = static_cast<int64_t>(v.size());
    const int64_t parts = n < (int64_t{1} << 16) ? 1 : 32;
    const int64_t chunk = (n + parts - 1) / parts;
    parallel_for(
        parts,
        [&](int64_t p) {
          const int64_t lo = std::min(n, p * chunk), hi = std::min(n, lo + chunk);
          std::sort(v.begin() + lo, v.begin() + hi);
        },
        1);
    for (int64_t width = chunk; width < n; width *= 2) {
      const int64_t pairs = (n + 2 * width - 1) / (2 * width);
      parallel_for(
          pairs,
          [&](int64_t q) {
            const int64_t lo = q * 2 * width, mid = std::min(n, lo + width), hi = std::min(n, lo + 2 * width);
            if (mid < hi) std::inplace_merge(v.begin() + lo, v.begin() + mid, v.begin() + hi);
          },
          1);
    }
  };
  // The output is a permutation of the input: compared exactly.
  spec.tolerance = [](const Shape&, Precision) { return Tolerance{0.0, 0.0}; };
  // Published complexity N*log2(N) (docs/tasks.md, Scoring); at least N so that N = 1 still counts.
  spec.complexity = [](const Shape& s) {
    const double n = static_cast<double>(s["N"]);
    return static_cast<uint64_t>(std::llround(n * std::max(1.0, std::log2(n))));
  };
  spec.cost = [](const Shape& s, Precision p) {
    const double n = static_cast<double>(s["N"]);
    return Cost{2.0 * n * static_cast<double>(real_bytes(p)), 0.0};
  };
}
