#include "mskb/core/instance.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>

#include "mskb/core/matrix_market.hpp"
#include "mskb/util/parallel.hpp"

namespace mskb {

namespace {
// The device bytes of one element and back, per storage type. Floating types round to nearest
// even straight from the double (fp16 too: one rounding); integers are exact for integer-valued
// doubles (an int64 beyond +-2^63 saturates, a NaN becomes 0: never undefined behaviour).
template <Storage S>
void encode_as(double v, unsigned char* dst) {
  if constexpr (S == Storage::i32) {
    const int32_t x = static_cast<int32_t>(v);
    std::memcpy(dst, &x, 4);
  } else if constexpr (S == Storage::i64) {
    constexpr double k2p63 = 9223372036854775808.0;
    const int64_t x = std::isnan(v) ? 0
                      : v >= k2p63  ? std::numeric_limits<int64_t>::max()
                      : v < -k2p63  ? std::numeric_limits<int64_t>::min()
                                    : static_cast<int64_t>(v);
    std::memcpy(dst, &x, 8);
  } else if constexpr (S == Storage::f32) {
    const float x = static_cast<float>(v);
    std::memcpy(dst, &x, 4);
  } else if constexpr (S == Storage::bf16) {
    const uint16_t x = bf16_bits(static_cast<float>(v));
    std::memcpy(dst, &x, 2);
  } else {
    const uint16_t x = fp16_bits(v);
    std::memcpy(dst, &x, 2);
  }
}
template <Storage S>
double decode_as(const unsigned char* src) {
  if constexpr (S == Storage::i32) {
    int32_t x;
    std::memcpy(&x, src, 4);
    return static_cast<double>(x);
  } else if constexpr (S == Storage::i64) {
    int64_t x;
    std::memcpy(&x, src, 8);
    return static_cast<double>(x);  // exact up to 2^53 in magnitude
  } else if constexpr (S == Storage::f32) {
    float x;
    std::memcpy(&x, src, 4);
    return static_cast<double>(x);
  } else if constexpr (S == Storage::bf16) {
    uint16_t x;
    std::memcpy(&x, src, 2);
    return static_cast<double>(bf16_to_float(x));
  } else {
    uint16_t x;
    std::memcpy(&x, src, 2);
    return fp16_to_double(x);
  }
}
template <Storage S>
struct Encoder {
  static constexpr std::size_t bytes = S == Storage::i64 ? 8 : S == Storage::f32 || S == Storage::i32 ? 4 : 2;
  void operator()(double v, unsigned char* dst) const { encode_as<S>(v, dst); }
};

uint64_t fnv1a(const std::string& s, uint64_t h = 0xcbf29ce484222325ULL) {
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}
}  // namespace

uint64_t instance_seed(const TaskSpec& spec, const Shape& shape, uint64_t seed) {
  return fnv1a(spec.name + "|" + shape.str()) ^ (seed * 0x9e3779b97f4a7c15ULL);
}

double round_scalar(ScalarType t, Precision p, double v) {
  switch (t) {
    case ScalarType::i32:
    case ScalarType::i64: return std::nearbyint(v);
    case ScalarType::f32: return static_cast<double>(static_cast<float>(v));
    case ScalarType::real: return round_to(p, v);
  }
  return v;
}

Args make_inputs(const TaskSpec& spec, const Shape& shape, Precision p, uint64_t seed, const SparseMatrix* matrix, Args storage,
                 Outputs outputs) {
  Args a = std::move(storage);
  a.resize(spec.params.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    Arg& x = a[i];
    x.value = 0.0;
    // Every buffer is cleared, its allocation kept: the generator's resize (HostData: nothing
    // written) then costs nothing within it, and one that grows past it moves no old elements.
    // A fresh allocation is mapped lazily: an output only a GPU reference writes (Outputs::sized)
    // never takes host memory; a zeroed one is faulted in by the parallel fill below.
    x.data.clear();
  }
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
      arg.value = round_scalar(q.scalar, p, arg.value);
      continue;
    }
    if (arg.data.empty())
      throw std::logic_error(spec.name + ": generator left buffer '" + q.name + "' empty for " + shape.str());
    if (q.role == Role::out || q.role == Role::accumulate) {
      if (outputs == Outputs::sized) continue;
      // In parallel: on the large sweeps this is gigabytes, and one thread writing them was a
      // visible part of every evaluation's generate phase.
      const auto n = static_cast<int64_t>(arg.data.size());
      constexpr int64_t kChunk = int64_t{1} << 20;
      parallel_for((n + kChunk - 1) / kChunk, [&](int64_t c) {
        std::fill(arg.data.begin() + c * kChunk, arg.data.begin() + std::min(n, (c + 1) * kChunk), 0.0);
      }, 1);
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
// `got(i, g)` stores element i in g and returns whether it is still unwritten (poison).
template <class Get>
void compare_range(const std::string& param, const Get& got, const HostData& want, Tolerance tol, bool exact,
                   std::size_t lo, std::size_t hi, CompareResult& r) {
  for (std::size_t i = lo; i < hi; ++i) {
    ++r.checked;
    double g = 0;
    const bool unwritten = got(i, g);
    const double w = want[i];
    bool bad = false;
    if (unwritten) {
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

// Chunks of 2^20 elements compared in parallel, folded in index order.
template <class Get>
void compare_chunked(const std::string& param, std::size_t n, const Get& got, const HostData& want, Tolerance tol,
                     bool exact, CompareResult& r) {
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<CompareResult> part(chunks);
  parallel_for(static_cast<int64_t>(chunks), [&](int64_t c) {
    const auto lo = static_cast<std::size_t>(c) * kChunk;
    compare_range(param, got, want, tol, exact, lo, std::min(n, lo + kChunk), part[static_cast<std::size_t>(c)]);
  }, 1);
  for (const auto& p : part) merge(r, p);
}
}  // namespace

void compare_buffer(const std::string& param, const std::vector<double>& got,
                    const std::vector<unsigned char>& unwritten_mask, const HostData& want,
                    Tolerance tol, bool exact, CompareResult& r) {
  if (got.size() != want.size()) throw std::logic_error("compare_buffer: size mismatch for " + param);
  if (!unwritten_mask.empty() && unwritten_mask.size() != got.size())
    throw std::logic_error("compare_buffer: mask size mismatch for " + param);
  const bool masked = !unwritten_mask.empty();
  compare_chunked(param, got.size(), [&](std::size_t i, double& g) {
    g = got[i];
    return masked && unwritten_mask[i] != 0;
  }, want, tol, exact, r);
}

void compare_encoded(const std::string& param, const unsigned char* bytes, std::size_t nbytes, Elem elem, Precision p, int poison,
                     const HostData& want, Tolerance tol, bool exact, CompareResult& r) {
  const std::size_t eb = elem_bytes(elem, p);
  if (nbytes != want.size() * eb) throw std::logic_error("compare_encoded: size mismatch for " + param);
  const auto poisoned = [&](const unsigned char* src) {
    if (poison < 0) return false;
    for (std::size_t b = 0; b < eb; ++b)
      if (src[b] != static_cast<unsigned char>(poison)) return false;
    return true;
  };
  // One pass over the buffer with the element type's decoding (0xFF poison bytes decode to NaN in
  // every floating type and to -1 in the integer ones: poisoned() is what tells them apart).
  const auto compare_as = [&](auto decode) {
    compare_chunked(param, want.size(), [&](std::size_t i, double& g) {
      const unsigned char* src = bytes + i * eb;
      g = decode(src);
      return poisoned(src);
    }, want, tol, exact, r);
  };
  switch (storage_of(elem, p)) {
    case Storage::i32: compare_as([](const unsigned char* src) { return decode_as<Storage::i32>(src); }); break;
    case Storage::i64: compare_as([](const unsigned char* src) { return decode_as<Storage::i64>(src); }); break;
    case Storage::f32: compare_as([](const unsigned char* src) { return decode_as<Storage::f32>(src); }); break;
    case Storage::bf16: compare_as([](const unsigned char* src) { return decode_as<Storage::bf16>(src); }); break;
    case Storage::f16: compare_as([](const unsigned char* src) { return decode_as<Storage::f16>(src); }); break;
  }
}

}  // namespace mskb

namespace mskb {

void encode_elem(double v, Elem e, Precision p, unsigned char* dst) {
  switch (storage_of(e, p)) {
    case Storage::i32: encode_as<Storage::i32>(v, dst); return;
    case Storage::i64: encode_as<Storage::i64>(v, dst); return;
    case Storage::f32: encode_as<Storage::f32>(v, dst); return;
    case Storage::bf16: encode_as<Storage::bf16>(v, dst); return;
    case Storage::f16: encode_as<Storage::f16>(v, dst); return;
  }
}

double decode_elem(const unsigned char* src, Elem e, Precision p) {
  switch (storage_of(e, p)) {
    case Storage::i32: return decode_as<Storage::i32>(src);
    case Storage::i64: return decode_as<Storage::i64>(src);
    case Storage::f32: return decode_as<Storage::f32>(src);
    case Storage::bf16: return decode_as<Storage::bf16>(src);
    case Storage::f16: return decode_as<Storage::f16>(src);
  }
  return 0.0;
}

void encode_inputs(const TaskSpec& spec, Precision p, const Args& a, const InstanceLayout& l, unsigned char* input_region) {
  for (std::size_t i = 0; i < spec.params.size(); ++i) {
    const BufferPlace& b = l.params[i];
    if (!b.buffer || !b.uploaded) continue;
    const Elem e = spec.params[i].elem;
    const HostData& v = a[i].data;
    unsigned char* base = input_region + b.in_offset;
    // One loop per storage type (the switch outside the loop: this is gigabytes on the large sweeps).
    const auto encode_all = [&](auto encode) {
      constexpr std::size_t eb = decltype(encode)::bytes;
      parallel_for(static_cast<int64_t>(v.size()), [&](int64_t k) {
        encode(v[static_cast<std::size_t>(k)], base + static_cast<std::size_t>(k) * eb);
      }, 1 << 16);
    };
    switch (storage_of(e, p)) {
      case Storage::i32: encode_all(Encoder<Storage::i32>{}); break;
      case Storage::i64: encode_all(Encoder<Storage::i64>{}); break;
      case Storage::f32: encode_all(Encoder<Storage::f32>{}); break;
      case Storage::bf16: encode_all(Encoder<Storage::bf16>{}); break;
      case Storage::f16: encode_all(Encoder<Storage::f16>{}); break;
    }
  }
}

InstanceLayout instance_layout(const TaskSpec& spec, Precision p, const std::vector<std::size_t>& elements, std::size_t guard_bytes) {
  InstanceLayout l;
  l.guard_bytes = guard_bytes;
  l.params.resize(spec.params.size());
  // 64-byte alignment keeps every buffer's copy on its own cache lines.
  auto align = [](std::size_t x) { return (x + 63) / 64 * 64; };
  for (std::size_t i = 0; i < spec.params.size(); ++i) {
    const Param& q = spec.params[i];
    BufferPlace& b = l.params[i];
    if (!q.is_buffer) continue;
    b.buffer = true;
    b.bytes = (i < elements.size() ? elements[i] : 0) * elem_bytes(q.elem, p);
    b.uploaded = q.role == Role::in || q.role == Role::inplace;
    if (b.uploaded) {
      b.in_offset = l.input_bytes;
      l.input_bytes = align(l.input_bytes + b.bytes);
    }
    b.out_offset = l.output_bytes;
    l.output_bytes = align(l.output_bytes + b.bytes);
    b.guard_offset = l.output_bytes;
    l.output_bytes = align(l.output_bytes + 2 * guard_bytes);
  }
  return l;
}

}  // namespace mskb
