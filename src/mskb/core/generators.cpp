// Shared input generators of the task specs (mskb/core/generators.hpp).
#include "mskb/core/generators.hpp"

#include <cmath>
#include <memory>
#include <stdexcept>
#include <utility>

#include "mskb/core/counter_rng.hpp"

namespace mskb {

double activation_input(Rng& r) {
  const UniformRange& d = kActivationInput;
  return (r.next() & 15u) == 0 ? r.uniform(d.wide_lo, d.wide_hi) : r.uniform(d.lo, d.hi);
}

void set_elementwise_sweeps(TaskSpec& spec) {
  spec.paper.clear();
  for (int e : {10, 12, 14, 16, 18}) spec.paper.push_back({{"N", int64_t{1} << e}});
  spec.heldout = {{{"N", 1}}, {{"N", 999}}, {{"N", 65537}}, {{"N", (1 << 18) + 3}}, {{"N", 3'000'017}}};
  spec.large = {{{"N", int64_t{1} << 24}}, {{"N", int64_t{1} << 26}}, {{"N", int64_t{1} << 28}}};
}

void set_activation_inputs(TaskSpec& spec, std::vector<double> constants, UniformRange x) {
  if (spec.params.size() != 3 + constants.size())
    throw std::logic_error(spec.name + ": an activation task has y, x, N and one constant per further scalar");
  std::vector<UniformRange> range(spec.params.size());
  range[1] = x;
  set_uniform_inputs(spec, {[constants](const Shape& s, Rng&, std::vector<std::size_t>& n, std::vector<double>& v) {
                              n[0] = n[1] = static_cast<std::size_t>(s["N"]);
                              v[2] = static_cast<double>(s["N"]);
                              for (std::size_t i = 0; i < constants.size(); ++i) v[3 + i] = constants[i];
                            },
                            std::move(range)});
}

namespace {
bool is_input(const Param& q) { return q.is_buffer && (q.role == Role::in || q.role == Role::inplace); }
// A real uniform draw without outliers, a first range or a mix: counter_uniform(key, i, lo, hi).
bool plain(const UniformRange& r) {
  return !r.integer && r.mix == DrawMix::none && !(r.wide_lo < r.wide_hi) && !(r.first_lo < r.first_hi) && r.lo < r.hi;
}
}  // namespace

namespace {
UniformDraw draw(const std::vector<Param>& params, const UniformInputs& u, const Shape& s, Rng& rng) {
  UniformDraw d;
  d.elements.assign(params.size(), 0);
  d.scalars.assign(params.size(), 0.0);
  d.keys.assign(params.size(), 0);
  u.layout(s, rng, d.elements, d.scalars);
  for (std::size_t i = 0; i < params.size(); ++i)
    if (is_input(params[i])) d.keys[i] = rng.next();
  d.ranges = u.range;
  if (u.shape_range) {
    u.shape_range(s, d.ranges);
    if (d.ranges.size() != params.size()) throw std::logic_error("shape_range changed the number of ranges");
  }
  for (std::size_t i = 0; i < d.ranges.size(); ++i) {
    UniformRange& r = d.ranges[i];
    if ((r.mix == DrawMix::row_halves || r.mix == DrawMix::channels) && r.period == 0)
      throw std::logic_error("a row_halves or channels range needs a period of at least 1 for " + s.str());
    if (r.mix != DrawMix::paired) continue;
    // The partner: another input buffer, at least as long, drawn as a plain uniform (what the mix
    // redraws from its key).
    const std::size_t j = r.partner;
    if (j >= params.size() || j == i || !is_input(params[j]) || d.elements[j] < d.elements[i] || !plain(d.ranges[j]))
      throw std::logic_error("a paired range needs another input buffer, at least as long and drawn as a plain uniform, as its partner for " +
                             s.str());
    r.partner_key = d.keys[j];
    r.lo2 = d.ranges[j].lo;
    r.hi2 = d.ranges[j].hi;
  }
  return d;
}
}  // namespace

UniformDraw draw_uniform(const TaskSpec& spec, const Shape& s, Rng& rng) {
  if (!spec.uniform_inputs) throw std::logic_error(spec.name + " does not draw uniform inputs");
  return draw(spec.params, *spec.uniform_inputs, s, rng);
}

void set_uniform_inputs(TaskSpec& spec, UniformInputs u) {
  if (u.range.size() != spec.params.size())
    throw std::logic_error(spec.name + ": set_uniform_inputs needs one range per parameter");
  for (std::size_t i = 0; i < spec.params.size(); ++i) {
    const Param& q = spec.params[i];
    const UniformRange& r = u.range[i];
    // int32 inputs take integer draws (labels), read-only; real ones take real draws.
    if (q.is_buffer && is_input(q) && (q.elem == Elem::i32) != r.integer)
      throw std::logic_error(spec.name + ": '" + q.name + "' is " + to_string(q.elem) + ", its range " +
                             (r.integer ? "integer: integer ranges are for int32 inputs" : "real: an int32 input takes an integer range"));
    if (r.integer && (q.role != Role::in || r.wide_lo < r.wide_hi || r.first_lo < r.first_hi || r.lo != std::floor(r.lo) ||
                      r.hi != std::floor(r.hi) || r.hi < r.lo || r.lo < -2147483648.0 || r.hi > 2147483647.0))
      throw std::logic_error(spec.name + ": the integer range of '" + q.name +
                             "' must be read-only, int32 bounds lo <= hi, without wide or first ranges");
    // A mix draws real values; its own ranges replace the outliers and the first range, except for
    // row_halves, whose first part is drawn as without a mix.
    if (r.mix != DrawMix::none &&
        (r.integer || (r.mix != DrawMix::row_halves && (r.wide_lo < r.wide_hi || r.first_lo < r.first_hi))))
      throw std::logic_error(spec.name + ": the mixed range of '" + q.name +
                             "' is real, and only row_halves keeps a wide or first range");
    if (r.mix == DrawMix::paired && (r.partner >= spec.params.size() || r.partner == i || !is_input(spec.params[r.partner]) ||
                                     !plain(u.range[r.partner])))
      throw std::logic_error(spec.name + ": the paired range of '" + q.name + "' needs another input buffer drawn as a plain uniform as its partner");
    // The verifier draws and compares these on the GPU (gpu_instance.cu): float, bf16 and int32 only.
    if (q.is_buffer && (q.elem == Elem::f16 || q.elem == Elem::i64))
      throw std::logic_error(spec.name + ": uniform inputs know float, bf16 and int32 buffers, not " + to_string(q.elem) + " '" + q.name + "'");
  }
  auto shared = std::make_shared<const UniformInputs>(std::move(u));
  spec.uniform_inputs = shared;
  // The CPU twin of the verifier's GPU generation: the same draw, the same counter values.
  const std::vector<Param> params = spec.params;
  spec.generate = [shared, params](const Shape& s, Precision, Rng& rng, Args& a) {
    const UniformDraw d = draw(params, *shared, s, rng);
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (!params[i].is_buffer) {
        a[i].value = d.scalars[i];
        continue;
      }
      a[i].data.resize(d.elements[i]);
      if (!is_input(params[i])) continue;
      const uint64_t key = d.keys[i];
      const UniformRange r = d.ranges[i];
      double* out = a[i].data.data();
      parallel_blocks(static_cast<int64_t>(d.elements[i]), [=](int64_t b, int64_t e) {
        for (int64_t k = b; k < e; ++k) out[k] = counter_draw(key, static_cast<uint64_t>(k), r);
      });
    }
  };
}

}  // namespace mskb
