#include "mskb/core/random_shapes.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>

namespace mskb {

namespace {

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

int bit_length(uint64_t v) {
  int n = 0;
  while (v) {
    ++n;
    v >>= 1;
  }
  return n;
}

// Integer in [lo, hi] (0 <= lo <= hi) with its bit length uniform: small and large values alike.
int64_t log_uniform(Rng& rng, int64_t lo, int64_t hi) {
  // Shifted by one so that 0 has a bit length of its own.
  const uint64_t a = static_cast<uint64_t>(lo) + 1, b = static_cast<uint64_t>(hi) + 1;
  const int e = static_cast<int>(rng.uniform_int(bit_length(a), bit_length(b)));
  const uint64_t from = std::max(a, uint64_t{1} << (e - 1));
  const uint64_t to = std::min(b, e >= 63 ? b : (uint64_t{1} << e) - 1);
  return static_cast<int64_t>(static_cast<uint64_t>(rng.uniform_int(static_cast<int64_t>(from), static_cast<int64_t>(to))) - 1);
}

constexpr int64_t kCategoricalMax = 8;  // dimensions whose declared values are all <= this are categorical

struct Dim {
  std::string name;
  enum Kind { optional, constant, categorical, range } kind = range;
  std::vector<int64_t> values;  // distinct declared values, sorted
  int64_t lo = 0, hi = 0;
  bool pow2 = false, odd = false;
  int64_t g = 1;
  int tie = -1;  // always equal to this earlier dimension
};

struct Order {
  int a, b;
  bool strict;  // a < b (else a <= b)
};

struct Space {
  std::vector<Dim> dims;
  std::vector<Order> order;
  std::vector<std::string> size_dims;  // present in every declared shape: the ones that must differ
  std::vector<Shape> declared;
  uint64_t max_complexity = 0;
  uint64_t min_paper_complexity = 0;
};

// `with_large`: the large shapes join the declared ones (the constraints of ad-hoc shapes; random
// shapes are derived from paper + held-out alone).
Space derive(const TaskSpec& spec, bool with_large = false) {
  Space sp;
  sp.declared = spec.paper;
  sp.declared.insert(sp.declared.end(), spec.heldout.begin(), spec.heldout.end());
  if (with_large) sp.declared.insert(sp.declared.end(), spec.large.begin(), spec.large.end());
  if (sp.declared.empty()) throw std::runtime_error(spec.name + ": no declared shapes to derive random shapes from");
  sp.min_paper_complexity = UINT64_MAX;
  for (const Shape& s : sp.declared) sp.max_complexity = std::max(sp.max_complexity, spec.complexity(s));
  for (const Shape& s : spec.paper) sp.min_paper_complexity = std::min(sp.min_paper_complexity, spec.complexity(s));

  // Ordered union of the dimension names.
  for (const Shape& s : sp.declared)
    for (const auto& d : s.dims)
      if (std::none_of(sp.dims.begin(), sp.dims.end(), [&](const Dim& x) { return x.name == d.first; })) {
        Dim x;
        x.name = d.first;
        sp.dims.push_back(x);
      }
  for (Dim& d : sp.dims) {
    bool everywhere = true;
    for (const Shape& s : sp.declared) {
      if (!s.has(d.name)) {
        everywhere = false;
        continue;
      }
      d.values.push_back(s[d.name]);
    }
    std::sort(d.values.begin(), d.values.end());
    d.values.erase(std::unique(d.values.begin(), d.values.end()), d.values.end());
    d.lo = d.values.front();
    d.hi = d.values.back();
    if (!everywhere) {
      d.kind = Dim::optional;
      continue;
    }
    sp.size_dims.push_back(d.name);
    if (d.values.size() == 1) {
      d.kind = Dim::constant;
    } else if (d.hi <= kCategoricalMax) {
      d.kind = Dim::categorical;
    } else {
      d.kind = Dim::range;
      d.pow2 = std::all_of(d.values.begin(), d.values.end(), is_pow2);
      d.odd = std::all_of(d.values.begin(), d.values.end(), [](int64_t v) { return v % 2 != 0; });
      d.g = 0;
      for (int64_t v : d.values) d.g = std::gcd(d.g, v);
      if (d.g < 1) d.g = 1;
      if (d.lo < 0) throw std::runtime_error(spec.name + ": dimension " + d.name + " takes negative values");
    }
  }
  // Relations between the dimensions present everywhere: equal, <=, <, in every declared shape.
  const auto n = static_cast<int>(sp.dims.size());
  for (int j = 0; j < n; ++j) {
    if (sp.dims[j].kind == Dim::optional || sp.dims[j].kind == Dim::constant) continue;
    for (int i = 0; i < j && sp.dims[j].tie < 0; ++i) {
      if (sp.dims[i].kind == Dim::optional || sp.dims[i].kind == Dim::constant || sp.dims[i].tie >= 0) continue;
      bool eq = true;
      for (const Shape& s : sp.declared) eq = eq && s[sp.dims[i].name] == s[sp.dims[j].name];
      if (eq) sp.dims[j].tie = i;
    }
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const Dim &a = sp.dims[i], &b = sp.dims[j];
      if (i == j || a.kind == Dim::optional || b.kind == Dim::optional || a.tie >= 0 || b.tie >= 0) continue;
      if (a.kind == Dim::constant && b.kind == Dim::constant) continue;
      bool le = true, lt = true;
      for (const Shape& s : sp.declared) {
        le = le && s[a.name] <= s[b.name];
        lt = lt && s[a.name] < s[b.name];
      }
      if (le) sp.order.push_back({i, j, lt});
    }
  return sp;
}

// One candidate from the derived space (relations not yet checked): values indexed like dims,
// -1 for an absent optional dimension.
std::vector<int64_t> draw(const Space& sp, Rng& rng) {
  std::vector<int64_t> v(sp.dims.size(), 0);
  for (std::size_t i = 0; i < sp.dims.size(); ++i) {
    const Dim& d = sp.dims[i];
    if (d.tie >= 0) {
      v[i] = v[static_cast<std::size_t>(d.tie)];
      continue;
    }
    switch (d.kind) {
      case Dim::optional: {
        const auto k = rng.uniform_int(0, static_cast<int64_t>(d.values.size()));
        v[i] = k == static_cast<int64_t>(d.values.size()) ? -1 : d.values[static_cast<std::size_t>(k)];
        break;
      }
      case Dim::constant: v[i] = d.lo; break;
      case Dim::categorical:
        v[i] = d.values[static_cast<std::size_t>(rng.uniform_int(0, static_cast<int64_t>(d.values.size()) - 1))];
        break;
      case Dim::range: {
        if (d.pow2) {
          v[i] = int64_t{1} << rng.uniform_int(bit_length(static_cast<uint64_t>(d.lo)) - 1, bit_length(static_cast<uint64_t>(d.hi)) - 1);
          break;
        }
        const int64_t mlo = (d.lo + d.g - 1) / d.g, mhi = d.hi / d.g;
        int64_t m = log_uniform(rng, mlo, mhi);
        if (d.odd && m % 2 == 0) m = m + 1 <= mhi ? m + 1 : m - 1;
        v[i] = m * d.g;
        break;
      }
    }
  }
  return v;
}

Shape to_shape(const Space& sp, const std::vector<int64_t>& v) {
  Shape s;
  for (std::size_t i = 0; i < sp.dims.size(); ++i)
    if (!(sp.dims[i].kind == Dim::optional && v[i] < 0)) s.dims.emplace_back(sp.dims[i].name, v[i]);
  return s;
}

bool relations_hold(const Space& sp, const std::vector<int64_t>& v) {
  for (std::size_t i = 0; i < sp.dims.size(); ++i) {
    const Dim& d = sp.dims[i];
    if (d.kind == Dim::range && (v[i] < d.lo || v[i] > d.hi || (d.odd && v[i] % 2 == 0))) return false;
  }
  for (const Order& o : sp.order) {
    const int64_t a = v[static_cast<std::size_t>(o.a)], b = v[static_cast<std::size_t>(o.b)];
    if (o.strict ? !(a < b) : !(a <= b)) return false;
  }
  return true;
}

// Same sizes as `d`: every dimension present in every declared shape has the same value.
bool same_sizes(const Shape& s, const Shape& d, const std::vector<std::string>& size_dims) {
  for (const auto& name : size_dims)
    if (!s.has(name) || !d.has(name) || s[name] != d[name]) return false;
  return true;
}

std::vector<std::string> common_dims(const TaskSpec& spec) {
  std::vector<Shape> all = spec.paper;
  all.insert(all.end(), spec.heldout.begin(), spec.heldout.end());
  std::vector<std::string> names;
  if (all.empty()) return names;
  for (const auto& d : all.front().dims)
    if (std::all_of(all.begin(), all.end(), [&](const Shape& s) { return s.has(d.first); })) names.push_back(d.first);
  return names;
}

}  // namespace

std::vector<Shape> random_shapes(const TaskSpec& spec, uint64_t seed, int count) {
  std::vector<Shape> out;
  if (!spec.random_shapes_ok || count <= 0) return out;
  Rng rng(fnv1a("random_shapes|" + spec.name) ^ (seed * 0x9e3779b97f4a7c15ULL));
  std::vector<Shape> declared = spec.paper;
  declared.insert(declared.end(), spec.heldout.begin(), spec.heldout.end());
  uint64_t max_complexity = 0, min_paper = UINT64_MAX;
  for (const Shape& s : declared) max_complexity = std::max(max_complexity, spec.complexity(s));
  for (const Shape& s : spec.paper) min_paper = std::min(min_paper, spec.complexity(s));
  declared.insert(declared.end(), spec.large.begin(), spec.large.end());  // never one of those either

  Space sp;
  std::vector<std::string> size_dims;
  if (spec.random_shape) {
    size_dims = common_dims(spec);
  } else {
    sp = derive(spec);
    size_dims = sp.size_dims;
  }
  // The first shape is any size (edge cases included); later ones alternate with shapes at least as
  // much work as the smallest paper shape (where tiling and multi-block code paths run), falling
  // back to any size when the space holds none.
  constexpr int kAttempts = 20000;
  for (int k = 0; k < count; ++k) {
    const bool paper_scale = k % 2 == 1;
    bool found = false;
    for (int attempt = 0; attempt < kAttempts && !found; ++attempt) {
      Shape s;
      if (spec.random_shape) {
        s = spec.random_shape(rng);
      } else {
        const auto v = draw(sp, rng);
        if (!relations_hold(sp, v)) continue;
        s = to_shape(sp, v);
      }
      const uint64_t c = spec.complexity(s);
      if (c == 0 || c > max_complexity) continue;
      if (paper_scale && attempt < kAttempts / 10 && c < min_paper) continue;
      if (std::any_of(declared.begin(), declared.end(), [&](const Shape& d) { return same_sizes(s, d, size_dims); })) continue;
      if (std::any_of(out.begin(), out.end(), [&](const Shape& d) { return same_sizes(s, d, size_dims); })) continue;
      out.push_back(std::move(s));
      found = true;
    }
    if (!found)
      throw std::runtime_error(spec.name + ": no random shape found in " + std::to_string(kAttempts) +
                               " draws (give the task an explicit random_shape sampler)");
  }
  return out;
}

uint64_t fresh_shape_seed() {
  std::random_device rd;
  uint64_t s = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  s ^= static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) * 0x9e3779b97f4a7c15ULL;
  // Keep it exactly representable in JSON doubles as well as integers, and nonzero.
  s &= (uint64_t{1} << 53) - 1;
  return s ? s : 1;
}

std::vector<std::string> shape_constraint_problems(const TaskSpec& spec, const Shape& s, std::vector<std::string>* notes) {
  std::vector<std::string> out;
  const Space sp = derive(spec, true);
  std::string all, required;
  for (const Dim& d : sp.dims) {
    all += (all.empty() ? "" : ", ") + d.name;
    if (d.kind != Dim::optional) required += (required.empty() ? "" : ", ") + d.name;
  }
  for (const auto& dim : s.dims) {
    const std::string& name = dim.first;  // a named variable: C++17 lambdas cannot capture a structured binding
    if (std::none_of(sp.dims.begin(), sp.dims.end(), [&](const Dim& d) { return d.name == name; }))
      out.push_back("unknown dimension '" + name + "' (" + spec.name + "'s dimensions: " + all + ")");
  }
  auto list = [](const std::vector<int64_t>& values) {
    std::string l;
    for (int64_t x : values) l += (l.empty() ? "" : ", ") + std::to_string(x);
    return l;
  };
  for (const Dim& d : sp.dims) {
    if (!s.has(d.name)) {
      if (d.kind != Dim::optional) out.push_back("missing dimension " + d.name + " (" + spec.name + " needs " + required + ")");
      continue;
    }
    const int64_t v = s[d.name];
    const std::string at = d.name + "=" + std::to_string(v) + ": ";
    if (v < std::min<int64_t>(d.lo, 1)) out.push_back(at + "must be at least " + std::to_string(std::min<int64_t>(d.lo, 1)));
    else if (d.kind == Dim::constant && v != d.lo) out.push_back(at + "must be " + std::to_string(d.lo) + " (every shape of " + spec.name + " has it)");
    else if ((d.kind == Dim::categorical || d.kind == Dim::optional) && std::find(d.values.begin(), d.values.end(), v) == d.values.end())
      out.push_back(at + "must be one of " + list(d.values) + " (the values " + spec.name + " declares)");
    else if (d.kind == Dim::range && d.pow2 && !is_pow2(v)) out.push_back(at + "must be a power of two (as every declared shape of " + spec.name + ")");
    else if (d.kind == Dim::range && d.g > 1 && v % d.g != 0)
      out.push_back(at + "must be a multiple of " + std::to_string(d.g) + " (as every declared shape of " + spec.name + ")");
    else if (d.kind == Dim::range && d.odd && v % 2 == 0) out.push_back(at + "must be odd (as every declared shape of " + spec.name + ")");
  }
  // Relations between dimensions may be the task's (top_k's k <= N) or chance (matrix_mul's N <= K):
  // notes, not problems.
  if (!out.empty() || notes == nullptr) return out;
  const std::string declared = " in every declared shape of " + spec.name + " (the task may assume it)";
  for (const Dim& d : sp.dims)
    if (d.tie >= 0 && s.has(d.name) && s[d.name] != s[sp.dims[static_cast<std::size_t>(d.tie)].name])
      notes->push_back(d.name + " = " + sp.dims[static_cast<std::size_t>(d.tie)].name + declared);
  for (const Order& o : sp.order) {
    const Dim &a = sp.dims[static_cast<std::size_t>(o.a)], &b = sp.dims[static_cast<std::size_t>(o.b)];
    if (o.strict ? !(s[a.name] < s[b.name]) : !(s[a.name] <= s[b.name]))
      notes->push_back(a.name + (o.strict ? " < " : " <= ") + b.name + declared);
  }
  return out;
}

Shape custom_shape(const TaskSpec& spec, const std::string& text, std::vector<std::string>* notes) {
  const std::string where = "--shape '" + text + "': ";
  Shape given;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw std::invalid_argument(where + "write each dimension as NAME=VALUE, several separated by commas (e.g. M=512,N=256,K=128)");
    const std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    if (value.find_first_not_of("0123456789") != std::string::npos || value.size() > 18)
      throw std::invalid_argument(where + name + ": '" + value + "' is not a whole number");
    if (given.has(name)) throw std::invalid_argument(where + name + " is given twice");
    given.dims.emplace_back(name, std::stoll(value));
    at = comma + 1;
  }
  std::vector<std::string> relations;
  const std::vector<std::string> problems = shape_constraint_problems(spec, given, &relations);
  if (!problems.empty()) {
    std::string all;
    for (const std::string& p : problems) all += (all.empty() ? "" : "; ") + p;
    throw std::invalid_argument(where + all);
  }
  if (notes != nullptr)
    for (const std::string& r : relations) notes->push_back(where + r);
  // The task's own order of the dimensions (as its declared shapes list them).
  Shape s;
  for (const Dim& d : derive(spec, true).dims)
    if (given.has(d.name)) s.dims.emplace_back(d.name, given[d.name]);
  try {
    if (spec.complexity(s) == 0) throw std::invalid_argument("it has no work (complexity 0)");
    (void)spec.cost(s, Precision::fp32);
    (void)spec.tolerance(s, Precision::fp32);
  } catch (const std::exception& e) {
    throw std::invalid_argument(where + spec.name + " cannot take it: " + e.what());
  }
  return s;
}

std::string describe_random_space(const TaskSpec& spec) {
  std::ostringstream os;
  if (!spec.random_shapes_ok) return spec.name + ": opted out of random shapes\n";
  if (spec.random_shape) return spec.name + ": explicit sampler\n";
  const Space sp = derive(spec);
  os << spec.name << ": complexity <= " << sp.max_complexity << "\n";
  for (const Dim& d : sp.dims) {
    os << "  " << d.name << ": ";
    if (d.tie >= 0) {
      os << "= " << sp.dims[static_cast<std::size_t>(d.tie)].name << "\n";
      continue;
    }
    switch (d.kind) {
      case Dim::optional: os << "optional, one of"; break;
      case Dim::constant: os << "constant"; break;
      case Dim::categorical: os << "one of"; break;
      case Dim::range:
        os << "[" << d.lo << ", " << d.hi << "]" << (d.pow2 ? " power of two" : "") << (d.g > 1 ? " multiple of " + std::to_string(d.g) : "")
           << (d.odd ? " odd" : "");
        break;
    }
    if (d.kind != Dim::range)
      for (int64_t x : d.values) os << " " << x;
    os << "\n";
  }
  for (const Order& o : sp.order)
    os << "  " << sp.dims[static_cast<std::size_t>(o.a)].name << (o.strict ? " < " : " <= ") << sp.dims[static_cast<std::size_t>(o.b)].name << "\n";
  return os.str();
}

}  // namespace mskb
