#include "mskb/core/task_file.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <list>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "../../../kernels/include/mskb_reference.h"
#include "../../../tasks/sparse/common/sparse_gen.hpp"
#include "mskb/core/expr.hpp"
#include "mskb/core/generators.hpp"
#include "mskb/core/registry.hpp"
#include "mskb/util/files.hpp"
#include "mskb/util/process.hpp"
#include "mskb/util/sha256.hpp"
#include "mskb/util/text.hpp"

#ifndef MSKB_HAVE_TOMLPP
#define MSKB_HAVE_TOMLPP 0
#endif
#if MSKB_HAVE_TOMLPP
#define TOML_ENABLE_FORMATTERS 0
#if __has_include(<toml++/toml.hpp>)
#include <toml++/toml.hpp>
#else
#include <toml++/toml.h>
#endif
#endif

namespace fs = std::filesystem;

namespace mskb {

// The compiled reference of one task file: built and loaded on first use, shared by the copies of
// its TaskSpec (sanitizer subsets, the registry's entry).
struct TaskFileReference {
  std::string where;   // "FILE:LINE: reference"
  std::string source;  // absolute
  std::vector<std::string> flags;
  std::mutex mu;
  std::string so_path;
  void* handle = nullptr;
  mskb_reference_fn fn = nullptr;
  TaskFileReference() = default;
  TaskFileReference(const TaskFileReference&) = delete;
  TaskFileReference& operator=(const TaskFileReference&) = delete;
  ~TaskFileReference() {
    if (handle) ::dlclose(handle);
  }
};

namespace {

// ---- the reference shared object ----------------------------------------------------------------

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

std::string cache_dir() {
  if (const char* d = std::getenv("MSKB_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/mskb";
  return env_or("HOME", "/tmp") + "/.cache/mskb";
}

bool is_c_source(const std::string& path) { return fs::path(path).extension() == ".c"; }

std::string host_compiler(bool c) {
  return c ? env_or("MSKB_HOST_CC", env_or("CC", "cc")) : env_or("MSKB_HOST_CXX", env_or("CXX", "c++"));
}

std::string compiler_version(const std::string& compiler) {
  static std::mutex mu;
  static std::map<std::string, std::string> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(compiler);
  if (it != cache.end()) return it->second;
  std::string out;
  if (run_command({compiler, "--version"}, out, 60) != 0) out = "unknown";
  return cache[compiler] = out;
}

std::string first_error(const std::string& output) {
  const std::vector<std::string> lines = split(output, '\n', true);
  for (const auto& l : lines)
    if (l.find("error") != std::string::npos) return trim(l);
  return lines.empty() ? std::string("no output") : trim(lines.front());
}

std::string build_reference(TaskFileReference& r) {
  const fs::path abi_dir = fs::path(source_root()) / "kernels" / "include";
  const std::string abi = read_text((abi_dir / "mskb_reference.h").string());
  std::string source;
  try {
    source = read_text(r.source);
  } catch (const std::exception&) {
    throw TaskFileError(r.where + ": cannot read " + r.source);
  }
  const bool c = is_c_source(r.source);
  const std::string compiler = host_compiler(c);
  std::vector<std::string> argv = {compiler, c ? "-std=c11" : "-std=c++17", "-O2", "-shared", "-fPIC", "-I" + abi_dir.string()};
  argv.insert(argv.end(), r.flags.begin(), r.flags.end());
  Sha256 h;
  h.update(source).update(std::string(1, '\0')).update(abi).update(std::string(1, '\0')).update(compiler_version(compiler));
  for (const auto& a : argv) h.update(a).update(std::string(1, '\0'));
  const std::string key = h.hex().substr(0, 32);
  const fs::path dir = fs::path(cache_dir()) / "references";
  std::error_code ec;
  fs::create_directories(dir, ec);
  const fs::path so = dir / (key + ".so");
  if (fs::is_regular_file(so, ec)) return so.string();
  const fs::path tmp = dir / (key + ".tmp" + std::to_string(::getpid()) + ".so");
  argv.insert(argv.end(), {r.source, "-o", tmp.string()});
  std::string out;
  const int rc = run_command(argv, out, 600);
  if (rc != 0) {
    fs::remove(tmp, ec);
    const std::string name = fs::path(r.source).filename().string();
    if (rc == -1) throw TaskFileError(r.where + ": cannot run the host compiler '" + compiler + "' (set MSKB_HOST_CXX)");
    throw TaskFileError(r.where + ": " + name + " does not compile: " + first_error(out));
  }
  fs::rename(tmp, so, ec);
  if (ec) throw TaskFileError(r.where + ": cannot write " + so.string() + ": " + ec.message());
  return so.string();
}

mskb_reference_fn load_reference(TaskFileReference& r) {
  std::lock_guard<std::mutex> lock(r.mu);
  if (r.fn) return r.fn;
  r.so_path = build_reference(r);
  if (!r.handle) {
    // RTLD_NODELETE: the library stays mapped after dlclose. A reference built with -fopenmp leaves
    // libgomp's worker threads parked in it; unmapping it under them crashed the process at exit.
    r.handle = ::dlopen(r.so_path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!r.handle) throw TaskFileError(r.where + ": cannot load the compiled reference: " + std::string(::dlerror()));
  }
  void* sym = ::dlsym(r.handle, "mskb_reference");
  if (!sym)
    throw TaskFileError(r.where + ": " + fs::path(r.source).filename().string() +
                        " does not export extern \"C\" void mskb_reference(const mskb_ref_args*)");
  r.fn = reinterpret_cast<mskb_reference_fn>(sym);
  return r.fn;
}

#if MSKB_HAVE_TOMLPP

// ---- the parsed model ---------------------------------------------------------------------------

// An expression with where it was written ("task.toml:14: params[1].length").
struct Field {
  Expr expr;
  std::string where;
  bool given = false;
};

enum class Dist { none, uniform, normal, int_uniform, constant };
struct Init {
  Dist dist = Dist::none;
  Field a, b;  // uniform/int_uniform: lo, hi; normal: mean, std; constant: value
};

enum class SparsePart { none, row_ptr, col_idx, values };

struct ParamModel {
  Param param;
  Field length;  // buffers (not filled by [sparse])
  Field value;   // scalars given by value
  Init init;     // inputs, and scalars drawn at random
  SparsePart sparse = SparsePart::none;
};

struct SparseModel {
  bool present = false;
  Field rows, cols, density, skewed;
  std::size_t row_ptr = 0, col_idx = 0, values = 0;  // parameter indices
};

struct Model {
  std::string file;  // as given, for run-time errors
  std::vector<std::string> dims;
  std::vector<std::string> vars;       // dims, then nnz and row_nnz when [sparse]
  std::vector<std::string> cost_vars;  // vars, then real_bytes
  std::vector<ParamModel> params;
  SparseModel sparse;
  std::map<Precision, std::pair<Field, Field>> tolerance;  // atol, rtol
  Field bytes, flops, complexity;
  bool tensor = false;
};

struct SparseSizes {
  int64_t rows = 0, cols = 0, per_row = 0, nnz = 0;
};

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

// The variables of lengths, values, generators and tolerances (dims, nnz, row_nnz).
std::vector<ExprValue> environment(const Model& m, const Shape& s, SparseSizes* sizes = nullptr) {
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

int abi_role(Role r) {
  switch (r) {
    case Role::in: return MSKB_REF_IN;
    case Role::out: return MSKB_REF_OUT;
    case Role::inplace: return MSKB_REF_INOUT;
    case Role::accumulate: return MSKB_REF_ACCUMULATE;
  }
  return MSKB_REF_IN;
}

void call_reference(TaskFileReference& r, const std::vector<Param>& params, const Shape& s, Precision p, Args& a) {
  const mskb_reference_fn fn = load_reference(r);
  std::vector<mskb_ref_param> ps(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    ps[i].name = params[i].name.c_str();
    ps[i].is_buffer = params[i].is_buffer ? 1 : 0;
    ps[i].role = abi_role(params[i].role);
    ps[i].data = params[i].is_buffer ? a[i].data.data() : nullptr;
    ps[i].length = params[i].is_buffer ? static_cast<int64_t>(a[i].data.size()) : 0;
    ps[i].value = a[i].value;
  }
  std::vector<mskb_ref_dim> ds;
  for (const auto& d : s.dims) ds.push_back({d.first.c_str(), d.second});
  char error[512] = {0};
  mskb_ref_args args{};
  args.abi_version = MSKB_REF_ABI_VERSION;
  args.precision = p == Precision::bf16 ? MSKB_REF_BF16 : MSKB_REF_FP32;
  args.num_params = static_cast<int>(ps.size());
  args.params = ps.data();
  args.num_dims = static_cast<int>(ds.size());
  args.dims = ds.data();
  args.error = error;
  args.error_size = sizeof error;
  fn(&args);
  if (error[0]) throw std::runtime_error(r.where + ": at shape " + s.str() + ": " + std::string(error));
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}


// ---- reading the TOML ---------------------------------------------------------------------------

std::string type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    default: return "a date/time";
  }
}

std::string key_path(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }
  std::string where(const toml::source_region& src, const std::string& key) const {
    return file_ + ":" + std::to_string(std::max<unsigned>(1, src.begin.line)) + ": " + key;
  }
  [[noreturn]] void fail(const toml::source_region& src, const std::string& key, const std::string& msg) const {
    throw TaskFileError(where(src, key) + ": " + msg);
  }

  // Every key of `t` must be one of `allowed`.
  void check_keys(const toml::table& t, const std::string& path, const std::vector<std::string>& allowed) const {
    for (auto&& [k, v] : t) {
      const std::string key(k.str());
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      std::string best;
      std::size_t best_d = 3;
      for (const auto& a : allowed) {
        const std::size_t d = edit_distance(key, a);
        if (d < best_d && d < key.size()) best_d = d, best = a;
      }
      fail(k.source(), key_path(path, key),
           "unknown key" + (best.empty() ? " (keys here: " + join(allowed, ", ") + ")" : " (did you mean '" + best + "'?)"));
    }
  }

  const toml::node* need(const toml::table& t, const std::string& path, const char* key, const std::string& what) const {
    const toml::node* n = t.get(key);
    if (!n) fail(t.source(), key_path(path, key), "missing (" + what + ")");
    return n;
  }

  std::string string(const toml::node& n, const std::string& key) const {
    if (!n.is_string()) fail(n.source(), key, "expected a string, got " + type_name(n));
    return n.as_string()->get();
  }
  std::optional<std::string> opt_string(const toml::table& t, const std::string& path, const char* key) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    return string(*n, key_path(path, key));
  }
  std::vector<std::string> strings(const toml::node& n, const std::string& key) const {
    if (!n.is_array()) fail(n.source(), key, "expected an array of strings, got " + type_name(n));
    std::vector<std::string> out;
    const toml::array& a = *n.as_array();
    for (std::size_t i = 0; i < a.size(); ++i) out.push_back(string(a[i], key + "[" + std::to_string(i) + "]"));
    return out;
  }
  const toml::table& table(const toml::node& n, const std::string& key) const {
    if (!n.is_table()) fail(n.source(), key, "expected a table, got " + type_name(n));
    return *n.as_table();
  }
  int64_t integer(const toml::node& n, const std::string& key) const {
    if (!n.is_integer()) fail(n.source(), key, "expected an integer, got " + type_name(n));
    return n.as_integer()->get();
  }
  double number(const toml::node& n, const std::string& key) const {
    if (n.is_integer()) return static_cast<double>(n.as_integer()->get());
    if (!n.is_floating_point()) fail(n.source(), key, "expected a number, got " + type_name(n));
    return n.as_floating_point()->get();
  }
  bool boolean(const toml::node& n, const std::string& key) const {
    if (!n.is_boolean()) fail(n.source(), key, "expected true or false, got " + type_name(n));
    return n.as_boolean()->get();
  }
  // A number or an expression string over `vars`.
  Field expr(const toml::node& n, const std::string& key, const std::vector<std::string>& vars) const {
    Field f;
    f.where = where(n.source(), key);
    f.given = true;
    if (n.is_integer()) {
      f.expr = Expr::constant_int(n.as_integer()->get());
    } else if (n.is_floating_point()) {
      f.expr = Expr::constant(n.as_floating_point()->get());
    } else if (n.is_boolean()) {
      f.expr = Expr::constant_int(n.as_boolean()->get() ? 1 : 0);
    } else if (n.is_string()) {
      try {
        f.expr = Expr::parse(n.as_string()->get(), vars);
      } catch (const ExprError& e) {
        fail(n.source(), key, e.what());
      }
    } else {
      fail(n.source(), key, "expected a number or an expression string, got " + type_name(n));
    }
    return f;
  }
  Field opt_expr(const toml::table& t, const std::string& path, const char* key, const std::vector<std::string>& vars) const {
    const toml::node* n = t.get(key);
    return n ? expr(*n, key_path(path, key), vars) : Field{};
  }
  // A file named relative to the task file, which must exist.
  std::string file_path(const toml::node& n, const std::string& key, const fs::path& dir) const {
    const std::string rel = string(n, key);
    const fs::path p = fs::path(rel).is_absolute() ? fs::path(rel) : dir / rel;
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) fail(n.source(), key, "file not found: " + rel + " (looked for " + p.lexically_normal().string() + ")");
    return p.lexically_normal().string();
  }

 private:
  std::string file_;
};

const std::vector<std::string> kReserved = {"nnz", "row_nnz", "real_bytes"};
// What a reference kernel may state it computes in (reference_precision): a statement for the
// reader and the check events (reference "kernel_fp32"); the tolerance is what accounts for it.
const std::vector<std::string> kReferencePrecisions = {"fp64", "fp32", "tf32", "bf16", "fp16"};

// `integer_type`: the parameter's integer type ("int32", "int64"), empty for a floating one.
Init read_init(const Reader& rd, const toml::node& n, const std::string& key, const std::vector<std::string>& vars,
               const std::string& integer_type) {
  const toml::table& t = rd.table(n, key);
  Init g;
  const std::string dist = rd.string(*rd.need(t, key, "dist", "uniform, normal, int_uniform or constant"), key + ".dist");
  auto two = [&](const char* a, const char* b) {
    rd.check_keys(t, key, {"dist", a, b});
    g.a = rd.expr(*rd.need(t, key, a, "a number or an expression"), key + "." + a, vars);
    g.b = rd.expr(*rd.need(t, key, b, "a number or an expression"), key + "." + b, vars);
  };
  if (dist == "uniform") {
    g.dist = Dist::uniform;
    two("lo", "hi");
  } else if (dist == "normal") {
    g.dist = Dist::normal;
    two("mean", "std");
  } else if (dist == "int_uniform") {
    g.dist = Dist::int_uniform;
    two("lo", "hi");
  } else if (dist == "constant") {
    g.dist = Dist::constant;
    rd.check_keys(t, key, {"dist", "value"});
    g.a = rd.expr(*rd.need(t, key, "value", "a number or an expression"), key + ".value", vars);
  } else {
    rd.fail(t.get("dist")->source(), key + ".dist", "unknown distribution '" + dist + "' (uniform, normal, int_uniform, constant)");
  }
  if (!integer_type.empty() && (g.dist == Dist::uniform || g.dist == Dist::normal))
    rd.fail(t.get("dist")->source(), key + ".dist", "an " + integer_type + " parameter takes int_uniform or constant, not " + dist);
  return g;
}

void read_param(const Reader& rd, const toml::table& t, const std::string& path, const std::vector<std::string>& vars, ParamModel& q) {
  rd.check_keys(t, path, {"name", "type", "role", "length", "init", "value"});
  const std::string name = rd.string(*rd.need(t, path, "name", "the parameter's name in the entry point"), path + ".name");
  if (!is_identifier(name)) rd.fail(t.get("name")->source(), path + ".name", "'" + name + "' is not a C identifier");
  q.param.name = name;
  const toml::node* type_node =
      rd.need(t, path, "type", "fp32, fp16, bf16, real, int32 or int64 for a buffer; int, int64, float or real for a scalar");
  const std::string type = rd.string(*type_node, path + ".type");
  const toml::node* role_node = t.get("role");
  auto unsupported = [&](const std::string& ty) {
    for (const char* no : {"fp64", "double", "int8", "uint8", "int16", "uint16", "uint32", "uint64", "fp8"})
      if (ty == no) rd.fail(type_node->source(), path + ".type", "type '" + ty + "' is not supported yet");
  };
  unsupported(type);
  if (role_node) {  // a buffer (a pointer argument)
    q.param.is_buffer = true;
    if (type == "fp32") q.param.elem = Elem::f32;
    else if (type == "fp16") q.param.elem = Elem::f16;
    else if (type == "real" || type == "bf16") q.param.elem = Elem::real;
    else if (type == "int32") q.param.elem = Elem::i32;
    else if (type == "int64") q.param.elem = Elem::i64;
    else rd.fail(type_node->source(), path + ".type", "unknown buffer type '" + type + "' (fp32, fp16, bf16, real, int32, int64)");
    const std::string role = rd.string(*role_node, path + ".role");
    if (role == "in") q.param.role = Role::in;
    else if (role == "out") q.param.role = Role::out;
    else if (role == "inout" || role == "inplace") q.param.role = Role::inplace;
    else if (role == "accumulate") q.param.role = Role::accumulate;
    else rd.fail(role_node->source(), path + ".role", "unknown role '" + role + "' (in, out, inout, accumulate)");
    if (const toml::node* v = t.get("value")) rd.fail(v->source(), path + ".value", "a buffer takes length and init, not value");
    if (const toml::node* l = t.get("length")) q.length = rd.expr(*l, path + ".length", vars);
    const bool input = q.param.role == Role::in || q.param.role == Role::inplace;
    if (const toml::node* g = t.get("init")) {
      if (!input) rd.fail(g->source(), path + ".init", "'" + name + "' is an output (role " + role + "): init is for inputs");
      q.init = read_init(rd, *g, path + ".init", vars, elem_is_integer(q.param.elem) ? to_string(q.param.elem) : "");
    }
  } else {  // a scalar passed by value
    q.param.is_buffer = false;
    if (type == "int" || type == "int32") q.param.scalar = ScalarType::i32;
    else if (type == "int64") q.param.scalar = ScalarType::i64;
    else if (type == "float" || type == "fp32") q.param.scalar = ScalarType::f32;
    else if (type == "real") q.param.scalar = ScalarType::real;
    else if (type == "bf16") rd.fail(type_node->source(), path + ".type", "a bf16 scalar is not supported yet (real is __nv_bfloat16 in the _bf16 entry point)");
    else if (type == "fp16") rd.fail(type_node->source(), path + ".type", "an fp16 scalar is not supported yet (fp16 is for buffers; pass a float)");
    else rd.fail(type_node->source(), path + ".type", "unknown scalar type '" + type + "' (int, int64, float, real; a buffer needs a role)");
    if (const toml::node* l = t.get("length")) rd.fail(l->source(), path + ".length", "a scalar has no length (a buffer needs a role)");
    const toml::node* v = t.get("value");
    const toml::node* g = t.get("init");
    if (v && g) rd.fail(g->source(), path + ".init", "give value or init, not both");
    if (!v && !g) rd.fail(t.source(), path + ".value", "missing (a scalar needs value = <expression> or init = {dist = ...})");
    if (v) q.value = rd.expr(*v, path + ".value", vars);
    if (g)
      q.init = read_init(rd, *g, path + ".init", vars,
                         q.param.scalar == ScalarType::i32 ? "int32" : q.param.scalar == ScalarType::i64 ? "int64" : "");
  }
}

struct Loaded {
  TaskFile file;
  std::shared_ptr<Model> model;
};

Loaded parse_task_file(const std::string& path) {
  Loaded out;
  TaskFile& tf = out.file;
  tf.path = path;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw TaskFileError("task file not found: " + path);
  tf.absolute_path = fs::weakly_canonical(fs::absolute(path), ec).string();
  const fs::path dir = fs::path(tf.absolute_path).parent_path();
  toml::table root;
  try {
    root = toml::parse(read_text(path), path);
  } catch (const toml::parse_error& e) {
    throw TaskFileError(path + ":" + std::to_string(e.source().begin.line) + ":" + std::to_string(e.source().begin.column) +
                        ": TOML syntax error: " + std::string(e.description()));
  }
  const Reader rd(path);
  auto m = std::make_shared<Model>();
  m->file = path;
  out.model = m;
  TaskSpec& spec = tf.spec;
  rd.check_keys(root, "", {"name", "category", "semantics", "dims", "precisions", "seeds", "call_timeout_s", "random_shapes",
                           "reference", "reference_flags", "reference_kernel", "reference_precision", "baseline", "complexity", "params", "sweeps", "tolerance", "cost", "sparse"});

  // name, category, semantics
  spec.name = rd.string(*rd.need(root, "", "name", "the task's name: the entry point's symbol"), "name");
  if (!is_identifier(spec.name)) rd.fail(root.get("name")->source(), "name", "'" + spec.name + "' is not a C identifier (it is the entry point's name)");
  spec.category = rd.opt_string(root, "", "category").value_or("user");
  if (!is_identifier(spec.category)) rd.fail(root.get("category")->source(), "category", "'" + spec.category + "' is not a plain word");
  spec.semantics = rd.string(*rd.need(root, "", "semantics", "what the entry point computes"), "semantics");
  if (trim(spec.semantics).empty()) rd.fail(root.get("semantics")->source(), "semantics", "is empty");
  spec.folder = dir.string();

  // dims
  const toml::node* dims_node = rd.need(root, "", "dims", "the shape variables, e.g. [\"M\", \"N\"]");
  m->dims = rd.strings(*dims_node, "dims");
  if (m->dims.empty()) rd.fail(dims_node->source(), "dims", "needs at least one shape variable");
  for (const auto& d : m->dims) {
    if (!is_identifier(d)) rd.fail(dims_node->source(), "dims", "'" + d + "' is not an identifier");
    if (std::count(m->dims.begin(), m->dims.end(), d) > 1) rd.fail(dims_node->source(), "dims", "'" + d + "' is listed twice");
    if (std::find(kReserved.begin(), kReserved.end(), d) != kReserved.end())
      rd.fail(dims_node->source(), "dims", "'" + d + "' is a reserved variable name (" + join(kReserved, ", ") + ")");
  }
  m->vars = m->dims;

  // precisions
  tf.precisions = {Precision::fp32, Precision::bf16};
  if (const toml::node* n = root.get("precisions")) {
    tf.precisions.clear();
    for (const auto& s : rd.strings(*n, "precisions")) {
      if (s != "fp32" && s != "bf16") rd.fail(n->source(), "precisions", "unknown precision '" + s + "' (fp32, bf16)");
      const Precision p = parse_precision(s);
      if (std::find(tf.precisions.begin(), tf.precisions.end(), p) == tf.precisions.end()) tf.precisions.push_back(p);
    }
    if (tf.precisions.empty()) rd.fail(n->source(), "precisions", "needs fp32, bf16 or both");
  }

  if (const toml::node* n = root.get("seeds")) {
    spec.seeds = static_cast<int>(rd.integer(*n, "seeds"));
    if (spec.seeds < 3 || spec.seeds > 100) rd.fail(n->source(), "seeds", "must be between 3 and 100");
  }
  if (const toml::node* n = root.get("call_timeout_s")) {
    spec.call_timeout_s = rd.number(*n, "call_timeout_s");
    if (!(spec.call_timeout_s > 0)) rd.fail(n->source(), "call_timeout_s", "must be positive");
  }
  if (const toml::node* n = root.get("random_shapes")) spec.random_shapes_ok = rd.boolean(*n, "random_shapes");

  // [sparse]: a CSR matrix filling three parameters; adds nnz and row_nnz to the variables.
  std::map<std::string, std::pair<SparsePart, const toml::node*>> sparse_names;
  if (const toml::node* n = root.get("sparse")) {
    const toml::table& t = rd.table(*n, "sparse");
    rd.check_keys(t, "sparse", {"format", "rows", "cols", "density", "skewed", "row_ptr", "col_idx", "values"});
    const std::string format = rd.string(*rd.need(t, "sparse", "format", "csr"), "sparse.format");
    if (format != "csr") rd.fail(t.get("format")->source(), "sparse.format", "format '" + format + "' is not supported yet (csr)");
    m->sparse.present = true;
    m->sparse.rows = rd.expr(*rd.need(t, "sparse", "rows", "an expression over dims"), "sparse.rows", m->dims);
    m->sparse.cols = rd.expr(*rd.need(t, "sparse", "cols", "an expression over dims"), "sparse.cols", m->dims);
    m->sparse.density = rd.expr(*rd.need(t, "sparse", "density", "the share of stored entries per row, e.g. 0.01"), "sparse.density", m->dims);
    m->sparse.skewed = rd.opt_expr(t, "sparse", "skewed", m->dims);
    const std::pair<const char*, SparsePart> parts[] = {
        {"row_ptr", SparsePart::row_ptr}, {"col_idx", SparsePart::col_idx}, {"values", SparsePart::values}};
    for (const auto& [key, part] : parts) {
      const toml::node* k = rd.need(t, "sparse", key, "the name of the parameter it fills");
      const std::string pname = rd.string(*k, std::string("sparse.") + key);
      if (sparse_names.count(pname)) rd.fail(k->source(), std::string("sparse.") + key, "'" + pname + "' is named twice");
      sparse_names[pname] = {part, k};
    }
    m->vars.push_back("nnz");
    m->vars.push_back("row_nnz");
  }
  m->cost_vars = m->vars;
  m->cost_vars.push_back("real_bytes");

  // [[params]]
  const toml::node* params_node = rd.need(root, "", "params", "the entry point's parameters, [[params]] tables in signature order");
  if (!params_node->is_array_of_tables()) rd.fail(params_node->source(), "params", "expected [[params]] tables, got " + type_name(*params_node));
  const toml::array& params = *params_node->as_array();
  if (params.empty()) rd.fail(params_node->source(), "params", "needs at least one parameter");
  for (const auto& [pname, part] : sparse_names) {
    bool found = false;
    for (std::size_t i = 0; i < params.size(); ++i)
      if (const toml::table* t = params[i].as_table())
        if (const toml::node* n = t->get("name"); n && n->is_string() && n->as_string()->get() == pname) found = true;
    if (!found) rd.fail(part.second->source(), "sparse", "'" + pname + "' is not a parameter");
  }
  bool has_output = false;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string ppath = "params[" + std::to_string(i) + "]";
    const toml::table& t = *params[i].as_table();
    ParamModel q;
    read_param(rd, t, ppath, m->vars, q);
    for (const auto& other : m->params)
      if (other.param.name == q.param.name) rd.fail(t.get("name")->source(), ppath + ".name", "'" + q.param.name + "' is already a parameter");
    const auto sp = sparse_names.find(q.param.name);
    if (sp != sparse_names.end()) {
      q.sparse = sp->second.first;
      if (!q.param.is_buffer || q.param.role != Role::in)
        rd.fail(t.source(), ppath, "'" + q.param.name + "' is filled by [sparse]: it must be a buffer with role = \"in\"");
      if (q.length.given) rd.fail(t.get("length")->source(), ppath + ".length", "the length of '" + q.param.name + "' is set by [sparse] (remove it)");
      if (t.get("init")) rd.fail(t.get("init")->source(), ppath + ".init", "'" + q.param.name + "' is filled by [sparse] (remove init)");
      const bool index = q.sparse != SparsePart::values;
      if (index ? q.param.elem != Elem::i32 : elem_is_integer(q.param.elem))
        rd.fail(t.get("type")->source(), ppath + ".type",
                index ? "'" + q.param.name + "' holds CSR indices: type = \"int32\"" : "'" + q.param.name + "' holds CSR values: fp32, fp16, bf16 or real");
      const std::size_t idx = m->params.size();
      (q.sparse == SparsePart::row_ptr ? m->sparse.row_ptr : q.sparse == SparsePart::col_idx ? m->sparse.col_idx : m->sparse.values) = idx;
      sparse_names.erase(sp);
    } else if (q.param.is_buffer) {
      if (!q.length.given) rd.fail(t.source(), ppath + ".length", "missing (the number of elements, an expression over dims)");
      const bool input = q.param.role == Role::in || q.param.role == Role::inplace;
      if (input && q.init.dist == Dist::none) {
        if (elem_is_integer(q.param.elem))
          rd.fail(t.source(), ppath + ".init", std::string("missing: an ") + to_string(q.param.elem) +
                                                   " input needs init = {dist = \"int_uniform\", lo = ..., hi = ...} or constant");
        q.init.dist = Dist::uniform;  // the default input: U(-1, 1)
        q.init.a = Field{Expr::constant_int(-1), rd.where(t.source(), ppath + ".init"), true};
        q.init.b = Field{Expr::constant_int(1), rd.where(t.source(), ppath + ".init"), true};
      }
    }
    if (q.param.is_buffer && q.param.role != Role::in) has_output = true;
    if (q.param.is_buffer && q.param.elem == Elem::real && rd.string(*t.get("type"), ppath + ".type") == "bf16" &&
        !(tf.precisions.size() == 1 && tf.precisions[0] == Precision::bf16))
      rd.fail(t.get("type")->source(), ppath + ".type",
              "a bf16 buffer exists only in the _bf16 entry point: set precisions = [\"bf16\"], or use real (float in fp32, bf16 in bf16)");
    spec.params.push_back(q.param);
    m->params.push_back(std::move(q));
  }
  if (!has_output) rd.fail(params_node->source(), "params", "no output: at least one buffer needs role out, inout or accumulate");

  // [sweeps]
  const toml::table& sweeps = rd.table(*rd.need(root, "", "sweeps", "paper, heldout and large shape lists"), "sweeps");
  rd.check_keys(sweeps, "sweeps", {"paper", "heldout", "large"});
  std::map<std::string, std::vector<const toml::node*>> shape_nodes;
  for (const char* which : {"paper", "heldout", "large"}) {
    const std::string key = std::string("sweeps.") + which;
    const toml::node* n = rd.need(sweeps, "sweeps", which, "a list of shapes such as [{ M = 1024, N = 512 }]");
    if (!n->is_array()) rd.fail(n->source(), key, "expected a list of shapes, got " + type_name(*n));
    const toml::array& list = *n->as_array();
    if (list.empty()) rd.fail(n->source(), key, "needs at least one shape");
    std::vector<Shape>& out_shapes = which == std::string("paper") ? spec.paper : which == std::string("heldout") ? spec.heldout : spec.large;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string skey = key + "[" + std::to_string(i) + "]";
      const toml::table& st = rd.table(list[i], skey);
      rd.check_keys(st, skey, m->dims);
      Shape s;
      for (const auto& d : m->dims) {
        const toml::node* v = st.get(d);
        if (!v) rd.fail(st.source(), skey, "missing shape variable '" + d + "' (dims: " + join(m->dims, ", ") + ")");
        const int64_t x = v->is_integer() ? v->as_integer()->get() : [&] {
          const Field f = rd.expr(*v, skey + "." + d, {});
          try {
            return f.expr.eval_int({});
          } catch (const ExprError& e) {
            rd.fail(v->source(), skey + "." + d, e.what());
          }
        }();
        if (x < 0) rd.fail(v->source(), skey + "." + d, "a shape variable cannot be negative (" + std::to_string(x) + ")");
        s.dims.push_back({d, x});
      }
      for (std::size_t j = 0; j < out_shapes.size(); ++j)
        if (out_shapes[j] == s) rd.fail(st.source(), skey, "shape " + s.str() + " is listed twice");
      if (which == std::string("heldout"))
        for (const auto& p : spec.paper)
          if (p == s) rd.fail(st.source(), skey, "shape " + s.str() + " is also in sweeps.paper (held-out shapes must differ)");
      out_shapes.push_back(s);
      shape_nodes[which].push_back(&list[i]);
    }
  }

  // [tolerance]: atol/rtol for both precisions, or per precision.
  const toml::table& tol = rd.table(*rd.need(root, "", "tolerance", "atol and rtol: |out - ref| <= atol + rtol*|ref|"), "tolerance");
  rd.check_keys(tol, "tolerance", {"atol", "rtol", "fp32", "bf16"});
  auto read_tol = [&](const toml::table& tt, const std::string& tpath) {
    rd.check_keys(tt, tpath, {"atol", "rtol"});
    std::pair<Field, Field> f{rd.opt_expr(tt, tpath, "atol", m->vars), rd.opt_expr(tt, tpath, "rtol", m->vars)};
    if (!f.first.given && !f.second.given) rd.fail(tt.source(), tpath, "needs atol, rtol or both");
    return f;
  };
  if (tol.get("atol") || tol.get("rtol")) {
    for (const char* p : {"fp32", "bf16"})
      if (const toml::node* n = tol.get(p))
        rd.fail(n->source(), std::string("tolerance.") + p, "give atol/rtol for both precisions or per precision, not both");
    const auto both = read_tol(tol, "tolerance");
    for (Precision p : tf.precisions) m->tolerance[p] = both;
  } else {
    for (const char* name : {"fp32", "bf16"}) {
      const Precision p = parse_precision(name);
      const bool defined = std::find(tf.precisions.begin(), tf.precisions.end(), p) != tf.precisions.end();
      const toml::node* n = tol.get(name);
      const std::string key = std::string("tolerance.") + name;
      if (!n) {
        if (defined) rd.fail(tol.source(), key, "missing (the task defines " + std::string(name) + "; or give atol/rtol for both)");
        continue;
      }
      if (!defined) rd.fail(n->source(), key, std::string("the task does not define ") + name + " (precisions)");
      m->tolerance[p] = read_tol(rd.table(*n, key), key);
    }
  }

  // [cost] and complexity
  if (const toml::node* n = root.get("cost")) {
    const toml::table& t = rd.table(*n, "cost");
    rd.check_keys(t, "cost", {"bytes", "flops", "tensor"});
    m->bytes = rd.opt_expr(t, "cost", "bytes", m->cost_vars);
    m->flops = rd.opt_expr(t, "cost", "flops", m->cost_vars);
    if (const toml::node* b = t.get("tensor")) m->tensor = rd.boolean(*b, "cost.tensor");
  }
  m->complexity = rd.opt_expr(root, "", "complexity", m->cost_vars);

  // reference (FP64, host) or reference_kernel (a CUDA kernel the verifier runs), and baseline
  std::shared_ptr<TaskFileReference> ref;
  const toml::node* kernel_node = root.get("reference_kernel");
  const toml::node* kprec_node = root.get("reference_precision");
  if (const toml::node* n = root.get("reference"); n && kernel_node)
    rd.fail(kernel_node->source(), "reference_kernel", "give reference (an FP64 C/C++ reference) or reference_kernel (a CUDA kernel), not both");
  if (kernel_node) {
    tf.reference_kernel = rd.file_path(*kernel_node, "reference_kernel", dir);
    tf.reference_kernel_where = rd.where(kernel_node->source(), "reference_kernel");
    if (fs::path(tf.reference_kernel).extension() != ".cu")
      rd.fail(kernel_node->source(), "reference_kernel", fs::path(tf.reference_kernel).filename().string() + " is not a CUDA source (.cu)");
    if (!kprec_node)
      rd.fail(kernel_node->source(), "reference_precision", "missing (what reference_kernel computes in: " + join(kReferencePrecisions, ", ") + ")");
    tf.reference_precision = rd.string(*kprec_node, "reference_precision");
    if (std::find(kReferencePrecisions.begin(), kReferencePrecisions.end(), tf.reference_precision) == kReferencePrecisions.end())
      rd.fail(kprec_node->source(), "reference_precision",
              "unknown precision '" + tf.reference_precision + "' (" + join(kReferencePrecisions, ", ") + ")");
    if (const toml::node* n = root.get("reference_flags"))
      rd.fail(n->source(), "reference_flags", "host-compiler flags are for reference = \"ref.cpp\"; reference_kernel is built like a kernel");
  } else {
    if (kprec_node) rd.fail(kprec_node->source(), "reference_precision", "only with reference_kernel (reference = \"...\" computes in FP64)");
    ref = std::make_shared<TaskFileReference>();
    const toml::node* ref_node = rd.need(root, "", "reference",
                                         "the FP64 reference source, e.g. \"ref.cpp\" (kernels/include/mskb_reference.h), or "
                                         "reference_kernel = \"orig.cu\" (a CUDA kernel)");
    tf.reference_source = rd.file_path(*ref_node, "reference", dir);
    ref->where = rd.where(ref_node->source(), "reference");
    ref->source = tf.reference_source;
    if (const toml::node* n = root.get("reference_flags")) tf.reference_flags = rd.strings(*n, "reference_flags");
    ref->flags = tf.reference_flags;
    tf.reference_state = ref;
  }
  if (const toml::node* n = root.get("baseline")) {
    if (n->is_string()) {
      const std::string f = rd.file_path(*n, "baseline", dir);
      for (Precision p : tf.precisions) tf.baseline[p] = f;
    } else {
      const toml::table& t = rd.table(*n, "baseline");
      rd.check_keys(t, "baseline", {"fp32", "bf16"});
      for (auto&& [k, v] : t) {
        const Precision p = parse_precision(std::string(k.str()));
        if (std::find(tf.precisions.begin(), tf.precisions.end(), p) == tf.precisions.end())
          rd.fail(k.source(), "baseline." + std::string(k.str()), "the task does not define " + std::string(k.str()) + " (precisions)");
        tf.baseline[p] = rd.file_path(v, "baseline." + std::string(k.str()), dir);
      }
    }
  }

  // Every expression at every declared shape, so a run never meets one that cannot be evaluated.
  for (const char* which : {"paper", "heldout", "large"}) {
    const std::vector<Shape>& shapes = spec.sweep(which);
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const Shape& s = shapes[i];
      try {
        SparseSizes z;
        const std::vector<ExprValue> env = environment(*m, s, &z);
        for (std::size_t k = 0; k < m->params.size(); ++k) {
          const ParamModel& q = m->params[k];
          if (q.param.is_buffer) (void)buffer_length(*m, k, env, z, s);
          if (q.value.given) {
            (void)eval_double(q.value, env, s);
            check_integer_range(q, q.value, eval(q.value, env, s), s);
          }
          if (q.init.dist == Dist::int_uniform) {
            const int64_t lo = eval_int(q.init.a, env, s), hi = eval_int(q.init.b, env, s);
            if (lo > hi) eval_fail(q.init.b, s, "hi is below lo");
            check_integer_range(q, q.init.a, ExprValue::integer(lo), s);
            check_integer_range(q, q.init.b, ExprValue::integer(hi), s);
          } else if (q.init.dist != Dist::none) {
            if (q.init.dist == Dist::constant) check_integer_range(q, q.init.a, eval(q.init.a, env, s), s);
            (void)eval_double(q.init.a, env, s);
            if (q.init.b.given) (void)eval_double(q.init.b, env, s);
            if (q.init.dist == Dist::normal && eval_double(q.init.b, env, s) < 0) eval_fail(q.init.b, s, "std is negative");
            if (q.init.dist == Dist::uniform && eval_double(q.init.a, env, s) > eval_double(q.init.b, env, s))
              eval_fail(q.init.b, s, "hi is below lo");
          }
        }
        if (m->sparse.skewed.given) (void)eval_double(m->sparse.skewed, env, s);
        for (Precision p : tf.precisions) {
          const auto& t = m->tolerance.at(p);
          for (const Field* f : {&t.first, &t.second})
            if (f->given && eval_double(*f, env, s) < 0) eval_fail(*f, s, "a tolerance cannot be negative");
          const Cost c = cost(*m, s, p);
          if (c.bytes < 0) eval_fail(m->bytes, s, "bytes cannot be negative");
          if (c.flops < 0) eval_fail(m->flops, s, "flops cannot be negative");
        }
        if (m->complexity.given) {
          std::vector<ExprValue> cenv = env;
          cenv.push_back(ExprValue::integer(4));
          if (eval_double(m->complexity, cenv, s) < 0) eval_fail(m->complexity, s, "complexity cannot be negative");
        }
      } catch (const TaskFileError& e) {
        // Name the sweep entry too: "... at shape M=1,N=0 (sweeps.heldout[2], line 31)".
        throw TaskFileError(std::string(e.what()) + " (sweeps." + which + "[" + std::to_string(i) + "], line " +
                            std::to_string(shape_nodes[which][i]->source().begin.line) + ")");
      }
    }
  }

  std::shared_ptr<const Model> cm = m;
  const std::vector<Param> sig = spec.params;
  spec.vendor = "";
  spec.generate = [cm](const Shape& s, Precision, Rng& rng, Args& a) { generate(*cm, s, rng, a); };
  if (ref) {
    spec.reference = [ref, sig](const Shape& s, Precision p, Args& a) { call_reference(*ref, sig, s, p, a); };
  } else {
    // A reference kernel runs only in mskb-runner, on the GPU (mskb/gpu/kernel_reference.cuh).
    const std::string why = tf.reference_kernel_where + ": the reference of task " + spec.name + " is a CUDA kernel (" +
                            fs::path(tf.reference_kernel).filename().string() + "): it runs on the GPU, in mskb-runner; there is no host reference";
    spec.reference = [why](const Shape&, Precision, Args&) { throw std::runtime_error(why); };
  }
  spec.tolerance = [cm](const Shape& s, Precision p) { return tolerance(*cm, s, p); };
  spec.complexity = [cm](const Shape& s) { return complexity(*cm, s); };
  spec.cost = [cm](const Shape& s, Precision p) { return cost(*cm, s, p); };
  const std::vector<std::string> problems = validate(spec);
  if (!problems.empty()) throw TaskFileError(path + ": " + problems.front());
  return out;
}

#endif  // MSKB_HAVE_TOMLPP

struct UserTasks {
  std::mutex mu;
  std::list<TaskFile> files;
};
UserTasks& user_tasks() {
  static UserTasks u;
  return u;
}

}  // namespace

bool task_files_supported() { return MSKB_HAVE_TOMLPP != 0; }

TaskFile load_task_file(const std::string& path) {
#if MSKB_HAVE_TOMLPP
  return parse_task_file(path).file;
#else
  throw TaskFileError(path + ": this mskb was built without toml++ (install libtomlplusplus-dev, scripts/install-deps.sh, and reconfigure)");
#endif
}

std::string compile_reference(const TaskFile& file) {
  if (!file.reference_kernel.empty()) return "";  // a CUDA kernel: built by the harness (mskb/harness/reference_kernel.hpp)
  if (!file.reference_state) throw TaskFileError(file.path + ": no reference");
  (void)load_reference(*file.reference_state);
  return file.reference_state->so_path;
}

const TaskFile& register_task_file(const std::string& path) {
  std::error_code ec;
  const std::string abs = fs::weakly_canonical(fs::absolute(path), ec).string();
  {
    std::lock_guard<std::mutex> lock(user_tasks().mu);
    for (const TaskFile& f : user_tasks().files)
      if (f.absolute_path == abs) return f;
  }
  TaskFile tf = load_task_file(path);
  for (const TaskSpec& t : all_tasks())
    if (t.name == tf.spec.name)
      throw TaskFileError(path + ": name '" + tf.spec.name + "' is a built-in task (choose another name)");
  std::lock_guard<std::mutex> lock(user_tasks().mu);
  for (const TaskFile& f : user_tasks().files) {
    if (f.absolute_path == tf.absolute_path) return f;
    if (f.spec.name == tf.spec.name)
      throw TaskFileError(path + ": name '" + tf.spec.name + "' is already the task of " + f.path);
  }
  user_tasks().files.push_back(std::move(tf));
  return user_tasks().files.back();
}

const TaskFile* registered_task_file(const std::string& task_name) {
  std::lock_guard<std::mutex> lock(user_tasks().mu);
  for (const TaskFile& f : user_tasks().files)
    if (f.spec.name == task_name) return &f;
  return nullptr;
}

const TaskSpec& resolve_task(const std::string& name, const std::string& task_file) {
  if (task_file.empty()) return get_task(name);
  const TaskFile& f = register_task_file(task_file);
  if (f.spec.name != name) throw TaskFileError(task_file + " defines task '" + f.spec.name + "', not '" + name + "'");
  return f.spec;
}

}  // namespace mskb

namespace mskb {

namespace {

// @NAME@ -> name; "@include" -> "#include" (spelled so in this host-only source, whose own includes
// the layer check reads line by line).
std::string fill_template(std::string text, const std::string& name) {
  for (std::size_t at = text.find("@NAME@"); at != std::string::npos; at = text.find("@NAME@", at + name.size()))
    text.replace(at, 6, name);
  for (std::size_t at = text.find("@include"); at != std::string::npos; at = text.find("@include", at + 1)) text[at] = '#';
  return text;
}

constexpr const char* kTaskToml = R"(# @NAME@: an MSKernelBench task file (docs/task-files.md describes every key).
# Check your kernel:  mskb check --task-file @NAME@/task.toml --kernel my_kernel.cu
# Time and score it:  mskb run --task-file @NAME@/task.toml --kernel my_kernel.cu

name = "@NAME@"          # the entry point: extern "C" void @NAME@(...) and @NAME@_bf16(...)
category = "user"
semantics = "y[i] = scale * x[i] + bias[i % C] for i in [0, N): a per-column bias over an N-element array of rows of C."
dims = ["N", "C"]          # shape variables, in order; every sweep shape gives each one
# precisions = ["fp32", "bf16"]   # the entry points the task defines (default: both)
# seeds = 3                       # correctness seeds per paper/held-out shape
reference = "ref.cpp"      # FP64 reference (kernels/include/mskb_reference.h), compiled by mskb
baseline = "baseline.cu"   # the contender your kernel is scored against (exports both entry points)

# The entry point's parameters, in signature order. A parameter with a role is a buffer
# (a device pointer): type fp32 | fp16 | bf16 | real | int32 | int64 (real is float in @NAME@,
# __nv_bfloat16 in @NAME@_bf16; fp16 is __half and int64 long long in both), role in | out | inout |
# accumulate, length = an expression over dims. Inputs are drawn by init: uniform {lo, hi},
# normal {mean, std}, int_uniform {lo, hi} or constant {value}.
[[params]]
name = "x"
type = "real"
role = "in"
length = "N"
init = { dist = "uniform", lo = -1, hi = 1 }

[[params]]
name = "bias"
type = "real"
role = "in"
length = "C"
init = { dist = "normal", mean = 0, std = 0.5 }

[[params]]
name = "y"
type = "real"
role = "out"               # poisoned before every call: every element must be written
length = "N"

# A parameter without a role is a scalar passed by value: type int | int64 | float | real, and value =
# an expression over dims, or init = {dist = ...} for a random value.
[[params]]
name = "scale"
type = "float"
init = { dist = "uniform", lo = 0.5, hi = 2 }

[[params]]
name = "N"
type = "int"
value = "N"

[[params]]
name = "C"
type = "int"
value = "C"

# Shapes: paper = the timed sizes; heldout = other sizes checked (odd, non-powers of two, never a
# paper shape); large = sizes timed with --sweep large.
[sweeps]
paper = [{ N = 65536, C = 64 }, { N = 1048576, C = 256 }, { N = 16777216, C = 1024 }]
heldout = [{ N = 1, C = 1 }, { N = 1001, C = 7 }, { N = 3000017, C = 333 }]
large = [{ N = 268435456, C = 4096 }]

# |out - ref| <= atol + rtol * |ref|, per precision (numbers or expressions over dims).
[tolerance]
fp32 = { atol = 1e-6, rtol = 1e-5 }
bf16 = { atol = 1e-2, rtol = 1e-2 }

# The roofline's minimum traffic and arithmetic per call (expressions; real_bytes is 4 or 2).
# Without bytes: every buffer once at its element size.
[cost]
bytes = "(2 * N + C) * real_bytes"
flops = "2 * N"

# complexity = "N"          # the weight of a shape in the score (default: the fp32 bytes)
)";

constexpr const char* kRefCpp = R"(// FP64 reference of @NAME@ (task.toml): mskb compiles this file with the host compiler and calls
// mskb_reference for every instance it checks. Inputs arrive rounded to their device type.
#include "mskb_reference.h"

extern "C" void mskb_reference(const mskb_ref_args* a) {
  const double* x = mskb_ref_data(a, "x");
  const double* bias = mskb_ref_data(a, "bias");
  double* y = mskb_ref_data(a, "y");
  const double scale = mskb_ref_scalar(a, "scale");
  const int64_t n = mskb_ref_length(a, "y"), c = mskb_ref_length(a, "bias");
  if (!x || !bias || !y) return;  // mskb_ref_data recorded the problem
  for (int64_t i = 0; i < n; ++i) y[i] = scale * x[i] + bias[i % c];
}
)";

constexpr const char* kBaselineCu = R"(// Baseline of @NAME@: one thread per element, FP32 arithmetic, one rounding to the output type.
@include <cuda_bf16.h>
@include <cuda_runtime.h>

template <class T>
__device__ float to_float(T v) { return static_cast<float>(v); }
template <>
__device__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T>
__device__ T from_float(float v) { return static_cast<T>(v); }
template <>
__device__ __nv_bfloat16 from_float(float v) { return __float2bfloat16(v); }

template <class T>
__global__ void @NAME@_kernel(const T* x, const T* bias, T* y, float scale, int N, int C) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) y[i] = from_float<T>(scale * to_float(x[i]) + to_float(bias[i % C]));
}

template <class T>
void launch(const T* x, const T* bias, T* y, float scale, int N, int C) {
  const int threads = 256;
  const long long blocks = (static_cast<long long>(N) + threads - 1) / threads;
  @NAME@_kernel<<<static_cast<unsigned>(blocks), threads>>>(x, bias, y, scale, N, C);
  cudaDeviceSynchronize();
}

extern "C" void @NAME@(const float* x, const float* bias, float* y, float scale, int N, int C) {
  launch(x, bias, y, scale, N, C);
}

extern "C" void @NAME@_bf16(const __nv_bfloat16* x, const __nv_bfloat16* bias, __nv_bfloat16* y, float scale, int N, int C) {
  launch(x, bias, y, scale, N, C);
}
)";

}  // namespace

std::vector<std::pair<std::string, std::string>> new_task_files(const std::string& name) {
  bool ok = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok) throw std::invalid_argument("task name '" + name + "' is not a C identifier (it is the entry point's name)");
  return {{"task.toml", fill_template(kTaskToml, name)},
          {"ref.cpp", fill_template(kRefCpp, name)},
          {"baseline.cu", fill_template(kBaselineCu, name)}};
}

}  // namespace mskb
