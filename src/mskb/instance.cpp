#include "mskb/instance.hpp"

#include <cmath>
#include <stdexcept>

#include "mskb/matrix_market.hpp"
#include "mskb/parallel.hpp"

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

Args make_inputs(const TaskSpec& spec, const Shape& shape, Precision p, uint64_t seed, const SparseMatrix* matrix) {
  Args a(spec.params.size());
  Rng rng(instance_seed(spec, shape, seed));
  if (matrix) {
    if (!spec.from_matrix) throw std::invalid_argument(spec.name + " does not take a user matrix (--matrix is for sparse tasks)");
    spec.from_matrix(*matrix, shape, p, rng, a);
  } else {
    spec.generate(shape, p, rng, a);
  }
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
    parallel_for(static_cast<int64_t>(arg.data.size()), [&](int64_t k) {
      auto& x = arg.data[static_cast<std::size_t>(k)];
      x = round_elem(q.elem, p, x);
    }, 1 << 16);
  }
  return a;
}

Shape matrix_shape(const TaskSpec& spec, const SparseMatrix& m) {
  Shape s{{"rows", m.rows}, {"cols", m.cols}, {"nnz", m.nnz()}, {"max_row_nnz", m.max_row_nnz()},
          {"max_col_nnz", m.max_col_nnz()}, {"matrix", 1}};
  for (const auto& d : spec.paper.front().dims)
    if (!s.has(d.first) && d.first != "skew") s.dims.push_back(d);
  return s;
}

Args make_expected(const TaskSpec& spec, const Shape& shape, Precision p, const Args& inputs) {
  Args e = inputs;
  spec.reference(shape, p, e);
  return e;
}

namespace {
void compare_range(const std::string& param, const std::vector<double>& got, const std::vector<unsigned char>& unwritten_mask,
                   const std::vector<double>& want, Tolerance tol, bool exact, std::size_t lo, std::size_t hi, CompareResult& r) {
  for (std::size_t i = lo; i < hi; ++i) {
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
    } else if (std::isinf(w) || std::isinf(g)) {
      bad = g != w;
    } else {
      const double err = std::fabs(g - w);
      const double bound = tol.atol + tol.rtol * std::fabs(w);
      r.max_abs_err = std::max(r.max_abs_err, err);
      r.max_rel_err = std::max(r.max_rel_err, bound > 0 ? err / bound : (err > 0 ? HUGE_VAL : 0.0));
      bad = err > bound;
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

// Folds a later chunk's result into an earlier one, keeping the first mismatches in index order.
void merge(CompareResult& into, const CompareResult& c) {
  into.checked += c.checked;
  into.mismatches += c.mismatches;
  into.nans += c.nans;
  into.unwritten += c.unwritten;
  into.max_abs_err = std::max(into.max_abs_err, c.max_abs_err);
  into.max_rel_err = std::max(into.max_rel_err, c.max_rel_err);
  if (!c.ok) {
    if (into.ok) into.param = c.param;
    into.ok = false;
    for (std::size_t k = 0; k < c.first_bad.size() && into.first_bad.size() < 8 && into.param == c.param; ++k) {
      into.first_bad.push_back(c.first_bad[k]);
      into.first_bad_got.push_back(c.first_bad_got[k]);
      into.first_bad_want.push_back(c.first_bad_want[k]);
    }
  }
}
}  // namespace

void compare_buffer(const std::string& param, const std::vector<double>& got,
                    const std::vector<unsigned char>& unwritten_mask, const std::vector<double>& want,
                    Tolerance tol, bool exact, CompareResult& r) {
  if (got.size() != want.size()) throw std::logic_error("compare_buffer: size mismatch for " + param);
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  const std::size_t chunks = (got.size() + kChunk - 1) / kChunk;
  std::vector<CompareResult> part(chunks);
  parallel_for(static_cast<int64_t>(chunks), [&](int64_t c) {
    const auto lo = static_cast<std::size_t>(c) * kChunk;
    compare_range(param, got, unwritten_mask, want, tol, exact, lo, std::min(got.size(), lo + kChunk), part[static_cast<std::size_t>(c)]);
  }, 1);
  for (const auto& p : part) merge(r, p);
}

}  // namespace mskb
