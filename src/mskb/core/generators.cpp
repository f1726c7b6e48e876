// Shared input generators of the task specs (mskb/core/generators.hpp).
#include "mskb/core/generators.hpp"

namespace mskb {

double activation_input(Rng& r) { return (r.next() & 15u) == 0 ? r.uniform(-100.0, 100.0) : r.uniform(-5.0, 5.0); }

void fill_activation_input(std::vector<double>& x, Rng& rng) {
  fill_each(x, rng, [](Rng& r, std::size_t) { return activation_input(r); });
}

void set_elementwise_sweeps(TaskSpec& spec) {
  spec.paper.clear();
  for (int e : {10, 12, 14, 16, 18}) spec.paper.push_back({{"N", int64_t{1} << e}});
  spec.heldout = {{{"N", 1}}, {{"N", 999}}, {{"N", 65537}}, {{"N", (1 << 18) + 3}}, {{"N", 3'000'017}}};
  spec.large = {{{"N", int64_t{1} << 24}}, {{"N", int64_t{1} << 26}}, {{"N", int64_t{1} << 28}}};
}

void generate_activation(const Shape& s, Rng& rng, Args& a) {
  const auto n = static_cast<std::size_t>(s["N"]);
  a[0].data.resize(n);
  a[1].data.resize(n);
  fill_activation_input(a[1].data, rng);
  a[2].value = static_cast<double>(n);
}

}  // namespace mskb
