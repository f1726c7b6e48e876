// A task file's model evaluated at a shape (task_file_model.hpp).
#include "task_file_model.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "mskb/core/generators.hpp"
#include "mskb/core/sparse_gen.hpp"
#include "mskb/core/task_file.hpp"

namespace mskb::task_model {


// Evaluation at one shape: errors name the field and the shape.
[[noreturn]] void eval_fail(const Field& f, const Shape& s, const std::string& what) {
  throw TaskFileError(f.where + ": " + what + " at shape " + s.str());
}
ExprValue eval(const Field& f, const std::vector<ExprValue>& env, const Shape& s) {
  try {
    return f.expr.eval(env);
  } catch (const ExprError& e) {
    eval_fail(f, s, e.what());
  }
}
double eval_double(const Field& f, const std::vector<ExprValue>& env, const Shape& s) {
  const double v = eval(f, env, s).as_double();
  if (!std::isfinite(v)) eval_fail(f, s, "'" + f.expr.text() + "' is not finite");
  return v;
}
int64_t eval_int(const Field& f, const std::vector<ExprValue>& env, const Shape& s) {
  try {
    return f.expr.eval_int(env);
  } catch (const ExprError& e) {
    eval_fail(f, s, e.what());
  }
}

namespace {
std::vector<ExprValue> dim_values(const Model& m, const Shape& s) {
  std::vector<ExprValue> env;
  for (const auto& d : m.dims) {
    if (!s.has(d)) throw TaskFileError(m.file + ": shape " + s.str() + " has no value for shape variable '" + d + "'");
    env.push_back(ExprValue::integer(s[d]));
  }
  return env;
}

SparseSizes sparse_sizes(const Model& m, const std::vector<ExprValue>& dims, const Shape& s) {
  SparseSizes z;
  const SparseModel& sp = m.sparse;
  z.rows = eval_int(sp.rows, dims, s);
  z.cols = eval_int(sp.cols, dims, s);
  if (z.rows < 1) eval_fail(sp.rows, s, "'" + sp.rows.expr.text() + "' is " + std::to_string(z.rows) + "; a matrix needs at least one row");
  if (z.cols < 1) eval_fail(sp.cols, s, "'" + sp.cols.expr.text() + "' is " + std::to_string(z.cols) + "; a matrix needs at least one column");
  const double density = eval_double(sp.density, dims, s);
  if (!(density > 0.0 && density <= 1.0)) eval_fail(sp.density, s, "density must be in (0, 1], not " + std::to_string(density));
  z.per_row = std::clamp<int64_t>(std::llround(density * static_cast<double>(z.cols)), 1, z.cols);
  z.nnz = z.rows * z.per_row;
  return z;
}
}  // namespace

// The variables of lengths, values, generators and tolerances (dims, nnz, row_nnz).
std::vector<ExprValue> environment(const Model& m, const Shape& s, SparseSizes* sizes) {
  std::vector<ExprValue> env = dim_values(m, s);
  if (m.sparse.present) {
    const SparseSizes z = sparse_sizes(m, env, s);
    env.push_back(ExprValue::integer(z.nnz));
    env.push_back(ExprValue::integer(z.per_row));
    if (sizes) *sizes = z;
  }
  return env;
}

int64_t buffer_length(const Model& m, std::size_t i, const std::vector<ExprValue>& env, const SparseSizes& z, const Shape& s) {
  const ParamModel& q = m.params[i];
  switch (q.sparse) {
    case SparsePart::row_ptr: return z.rows + 1;
    case SparsePart::col_idx:
    case SparsePart::values: return z.nnz;
    case SparsePart::none: break;
  }
  const int64_t n = eval_int(q.length, env, s);
  if (n < 1) eval_fail(q.length, s, "'" + q.length.expr.text() + "' is " + std::to_string(n) + "; a buffer needs at least one element");
  return n;
}

namespace {
void fill_buffer(const ParamModel& q, const std::vector<ExprValue>& env, const Shape& s, Rng& rng, HostData& v) {
  const Init& g = q.init;
  switch (g.dist) {
    case Dist::uniform: {
      const double lo = eval_double(g.a, env, s), hi = eval_double(g.b, env, s);
      rng.fill_uniform(v, lo, hi);
      return;
    }
    case Dist::normal: {
      const double mean = eval_double(g.a, env, s), sd = eval_double(g.b, env, s);
      fill_each(v, rng, [mean, sd](Rng& r, std::size_t) { return r.normal(mean, sd); });
      return;
    }
    case Dist::int_uniform: {
      const int64_t lo = eval_int(g.a, env, s), hi = eval_int(g.b, env, s);
      if (lo > hi) eval_fail(g.b, s, "hi (" + std::to_string(hi) + ") is below lo (" + std::to_string(lo) + ")");
      fill_each(v, rng, [lo, hi](Rng& r, std::size_t) { return static_cast<double>(r.uniform_int(lo, hi)); });
      return;
    }
    case Dist::constant: std::fill(v.begin(), v.end(), eval_double(g.a, env, s)); return;
    case Dist::none: break;
  }
  std::fill(v.begin(), v.end(), 0.0);  // no init: zeros (a resize leaves HostData unwritten)
}

double draw_scalar(const ParamModel& q, const std::vector<ExprValue>& env, const Shape& s, Rng& rng) {
  if (q.value.given) return eval_double(q.value, env, s);
  const Init& g = q.init;
  switch (g.dist) {
    case Dist::uniform: return rng.uniform(eval_double(g.a, env, s), eval_double(g.b, env, s));
    case Dist::normal: return rng.normal(eval_double(g.a, env, s), eval_double(g.b, env, s));
    case Dist::int_uniform: {
      const int64_t lo = eval_int(g.a, env, s), hi = eval_int(g.b, env, s);
      if (lo > hi) eval_fail(g.b, s, "hi (" + std::to_string(hi) + ") is below lo (" + std::to_string(lo) + ")");
      return static_cast<double>(rng.uniform_int(lo, hi));
    }
    case Dist::constant: return eval_double(g.a, env, s);
    case Dist::none: break;
  }
  return 0.0;
}
}  // namespace

void generate(const Model& m, const Shape& s, Rng& rng, Args& a) {
  SparseSizes z;
  const std::vector<ExprValue> env = environment(m, s, &z);
  bool sparse_done = false;
  for (std::size_t i = 0; i < m.params.size(); ++i) {
    const ParamModel& q = m.params[i];
    if (q.sparse != SparsePart::none) {
      if (sparse_done) continue;
      sparse_done = true;
      namespace sp = mskb::sparse;
      const bool skewed = m.sparse.skewed.given && eval_double(m.sparse.skewed, env, s) != 0.0;
      const std::vector<int64_t> lengths = skewed ? sp::powerlaw_lengths(z.rows, z.cols, z.nnz, 0, sp::kEmptyFraction, rng)
                                                  : std::vector<int64_t>(static_cast<std::size_t>(z.rows), z.per_row);
      sp::build_compressed(z.rows, z.cols, lengths, rng, a[m.sparse.values].data, a[m.sparse.col_idx].data,
                           a[m.sparse.row_ptr].data);
      continue;
    }
    if (!q.param.is_buffer) {
      a[i].value = draw_scalar(q, env, s, rng);
      continue;
    }
    a[i].data.resize(static_cast<std::size_t>(buffer_length(m, i, env, z, s)));
    if (q.param.role == Role::in || q.param.role == Role::inplace) fill_buffer(q, env, s, rng, a[i].data);
  }
}

Cost cost(const Model& m, const Shape& s, Precision p) {
  SparseSizes z;
  std::vector<ExprValue> env = environment(m, s, &z);
  Cost c;
  c.tensor = m.tensor;
  if (m.bytes.given) {
    std::vector<ExprValue> cenv = env;
    cenv.push_back(ExprValue::integer(static_cast<int64_t>(real_bytes(p))));
    c.bytes = eval_double(m.bytes, cenv, s);
  } else {
    for (std::size_t i = 0; i < m.params.size(); ++i) {
      const Param& q = m.params[i].param;
      if (!q.is_buffer) continue;
      const double n = static_cast<double>(buffer_length(m, i, env, z, s)) * static_cast<double>(elem_bytes(q.elem, p));
      c.bytes += q.role == Role::inplace ? 2.0 * n : n;
    }
  }
  if (m.flops.given) {
    env.push_back(ExprValue::integer(static_cast<int64_t>(real_bytes(p))));
    c.flops = eval_double(m.flops, env, s);
  }
  return c;
}

uint64_t complexity(const Model& m, const Shape& s) {
  if (!m.complexity.given) return static_cast<uint64_t>(std::max(0.0, cost(m, s, Precision::fp32).bytes));
  std::vector<ExprValue> env = environment(m, s);
  env.push_back(ExprValue::integer(4));
  return static_cast<uint64_t>(std::max(0.0, eval_double(m.complexity, env, s)));
}

Tolerance tolerance(const Model& m, const Shape& s, Precision p) {
  const auto it = m.tolerance.find(p);
  if (it == m.tolerance.end()) throw TaskFileError(m.file + ": no tolerance for " + std::string(to_string(p)));
  const std::vector<ExprValue> env = environment(m, s);
  Tolerance t;
  if (it->second.first.given) t.atol = eval_double(it->second.first, env, s);
  if (it->second.second.given) t.rtol = eval_double(it->second.second, env, s);
  return t;
}

// An integer parameter's values must fit its type, and an int64's must be exact in FP64 (the
// reference's values): int32 in [-2^31, 2^31), int64 within +-2^53. Floating ones: nothing to check.
void check_integer_range(const ParamModel& q, const Field& f, const ExprValue& v, const Shape& s) {
  const bool i32 = q.param.is_buffer ? q.param.elem == Elem::i32 : q.param.scalar == ScalarType::i32;
  const bool i64 = q.param.is_buffer ? q.param.elem == Elem::i64 : q.param.scalar == ScalarType::i64;
  if (!i32 && !i64) return;
  const int64_t lo = i32 ? INT32_MIN : -(int64_t{1} << 53), hi = i32 ? INT32_MAX : int64_t{1} << 53;
  const bool inside = v.is_int ? v.i >= lo && v.i <= hi : v.d >= static_cast<double>(lo) && v.d <= static_cast<double>(hi);
  if (inside) return;
  std::ostringstream os;
  if (v.is_int) os << v.i;
  else os << std::setprecision(17) << v.d;
  eval_fail(f, s, "'" + f.expr.text() + "' is " + os.str() +
                      (i32 ? ", outside int32 (use int64)"
                           : ", beyond 2^53 in magnitude (int64 values reach the FP64 reference exactly only up to 2^53)"));
}

}  // namespace mskb::task_model
