#include "mskb/instance.hpp"

#include <cmath>
#include <stdexcept>

namespace mskb {

namespace {
uint64_t fnv1a(const std::string& s, uint64_t h = 0xcbf29ce484222325ULL) {
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}
}  // namespace

uint64_t instance_seed(const TaskSpec& spec, const Shape& shape, uint64_t seed) {
  return fnv1a(spec.name + "|" + shape.str()) ^ (seed * 0x9e3779b97f4a7c15ULL);
}

Args make_inputs(const TaskSpec& spec, const Shape& shape, Precision p, uint64_t seed) {
  Args a(spec.params.size());
  Rng rng(instance_seed(spec, shape, seed));
  spec.generate(shape, p, rng, a);
  for (std::size_t i = 0; i < spec.params.size(); ++i) {
    const Param& q = spec.params[i];
    Arg& arg = a[i];
    if (!q.is_buffer) {
      switch (q.scalar) {
        case ScalarType::i32: arg.value = std::nearbyint(arg.value); break;
        case ScalarType::f32: arg.value = static_cast<double>(static_cast<float>(arg.value)); break;
        case ScalarType::real: arg.value = round_to(p, arg.value); break;
      }
      continue;
    }
    if (arg.data.empty())
      throw std::logic_error(spec.name + ": generator left buffer '" + q.name + "' empty for " + shape.str());
    if (q.role == Role::out || q.role == Role::accumulate) {
      std::fill(arg.data.begin(), arg.data.end(), 0.0);
      continue;
    }
    for (auto& x : arg.data) x = round_elem(q.elem, p, x);
  }
  return a;
}

Args make_expected(const TaskSpec& spec, const Shape& shape, Precision p, const Args& inputs) {
  Args e = inputs;
  spec.reference(shape, p, e);
  return e;
}

void compare_buffer(const std::string& param, const std::vector<double>& got,
                    const std::vector<unsigned char>& unwritten_mask, const std::vector<double>& want,
                    Tolerance tol, bool exact, CompareResult& r) {
  if (got.size() != want.size()) throw std::logic_error("compare_buffer: size mismatch for " + param);
  for (std::size_t i = 0; i < got.size(); ++i) {
    ++r.checked;
    const double g = got[i], w = want[i];
    bool bad = false;
    if (!unwritten_mask.empty() && unwritten_mask[i]) {
      ++r.unwritten;
      bad = true;
    } else if (std::isnan(g)) {
      ++r.nans;
      bad = true;  // a NaN never passes, whatever the reference says
    } else if (exact) {
      bad = g != w;
      if (bad) r.max_rel_err = HUGE_VAL;
    } else {
      const double err = std::fabs(g - w);
      const double bound = tol.atol + tol.rtol * std::fabs(w);
      if (std::isinf(w) || std::isinf(g)) {
        bad = g != w;
      } else {
        r.max_abs_err = std::max(r.max_abs_err, err);
        const double rel = bound > 0 ? err / bound : (err > 0 ? HUGE_VAL : 0.0);
        r.max_rel_err = std::max(r.max_rel_err, rel);
        bad = err > bound;
      }
    }
    if (bad) {
      if (r.ok) r.param = param;
      r.ok = false;
      ++r.mismatches;
      if (r.first_bad.size() < 8 && r.param == param) {
        r.first_bad.push_back(i);
        r.first_bad_got.push_back(g);
        r.first_bad_want.push_back(w);
      }
    }
  }
}

}  // namespace mskb
