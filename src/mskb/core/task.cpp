#include "mskb/core/task.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "mskb/util/parallel.hpp"

namespace mskb {

const char* to_string(Precision p) { return p == Precision::fp32 ? "fp32" : "bf16"; }

Precision parse_precision(const std::string& s) {
  if (s == "fp32") return Precision::fp32;
  if (s == "bf16") return Precision::bf16;
  throw std::invalid_argument("unknown precision '" + s + "' (expected fp32 or bf16)");
}

const char* to_string(Role r) {
  switch (r) {
    case Role::in: return "in";
    case Role::out: return "out";
    case Role::accumulate: return "accumulate";
    case Role::inplace: return "inplace";
  }
  return "?";
}

namespace {
Param buffer(std::string name, Elem e, Role r) {
  Param p;
  p.name = std::move(name);
  p.is_buffer = true;
  p.elem = e;
  p.role = r;
  return p;
}
Param scalar(std::string name, ScalarType t) {
  Param p;
  p.name = std::move(name);
  p.is_buffer = false;
  p.scalar = t;
  return p;
}
}  // namespace

Param in(std::string name, Elem e) { return buffer(std::move(name), e, Role::in); }
Param out(std::string name, Elem e) { return buffer(std::move(name), e, Role::out); }
Param accumulate(std::string name, Elem e) { return buffer(std::move(name), e, Role::accumulate); }
Param inplace(std::string name, Elem e) { return buffer(std::move(name), e, Role::inplace); }
Param int_arg(std::string name) { return scalar(std::move(name), ScalarType::i32); }
Param float_arg(std::string name) { return scalar(std::move(name), ScalarType::f32); }
Param real_arg(std::string name) { return scalar(std::move(name), ScalarType::real); }

int64_t Shape::operator[](const std::string& name) const {
  for (const auto& d : dims)
    if (d.first == name) return d.second;
  throw std::out_of_range("shape " + str() + " has no dimension '" + name + "'");
}

bool Shape::has(const std::string& name) const {
  for (const auto& d : dims)
    if (d.first == name) return true;
  return false;
}

std::string Shape::str() const {
  std::string s;
  for (const auto& d : dims) {
    if (!s.empty()) s += ',';
    s += d.first + "=" + std::to_string(d.second);
  }
  return s;
}

std::vector<std::string> validate(const TaskSpec& s) {
  std::vector<std::string> problems;
  auto need = [&](bool ok, const std::string& what) {
    if (!ok) problems.push_back(s.name + ": " + what);
  };
  need(!s.semantics.empty(), "semantics is empty");
  need(!s.params.empty(), "no parameters");
  need(!s.paper.empty(), "paper sweep is empty");
  need(!s.heldout.empty(), "held-out shapes are empty");
  need(!s.large.empty(), "large sweep is empty");
  need(static_cast<bool>(s.generate), "no generator");
  need(static_cast<bool>(s.reference), "no reference");
  need(static_cast<bool>(s.tolerance), "no tolerance");
  need(static_cast<bool>(s.complexity), "no complexity");
  need(static_cast<bool>(s.cost), "no cost model");
  need(s.seeds >= 3, "fewer than 3 correctness seeds");
  bool has_output = false;
  for (const auto& p : s.params)
    if (p.is_buffer && p.role != Role::in) has_output = true;
  need(has_output, "no output parameter");
  for (const auto& h : s.heldout)
    for (const auto& q : s.paper) need(!(h == q), "held-out shape " + h.str() + " is also in the paper sweep");
  return problems;
}

const std::vector<Shape>& TaskSpec::sweep(const std::string& which) const {
  if (which == "paper") return paper;
  if (which == "heldout") return heldout;
  if (which == "large") return large;
  throw std::invalid_argument("unknown sweep '" + which + "' (expected paper, heldout or large)");
}

std::string TaskSpec::signature(Precision p) const {
  std::ostringstream os;
  os << "extern \"C\" void " << symbol(p) << "(";
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Param& q = params[i];
    if (i) os << ", ";
    if (q.is_buffer) {
      const bool read_only = q.role == Role::in;
      os << (read_only ? "const " : "") << c_type(q.elem, p) << "* " << q.name;
    } else {
      const char* t = q.scalar == ScalarType::i32   ? "int"
                      : q.scalar == ScalarType::i64 ? "long long"
                      : q.scalar == ScalarType::f32 || p == Precision::fp32 ? "float"
                                                                            : "__nv_bfloat16";
      os << t << " " << q.name;
    }
  }
  os << ")";
  return os.str();
}

// ---- Rng: xoshiro256** (Blackman & Vigna), seeded through splitmix64.
namespace {
uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

Rng::Rng(uint64_t seed) {
  for (auto& s : s_) s = splitmix64(seed);
}

uint64_t Rng::next() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform(double lo, double hi) {
  const double u = static_cast<double>(next() >> 11) * 0x1.0p-53;
  return lo + (hi - lo) * u;
}

int64_t Rng::uniform_int(int64_t lo, int64_t hi) {
  const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  if (span == 0) return static_cast<int64_t>(next());
  // Lemire's nearly-divisionless bounded draw, with rejection for exact uniformity.
  const uint64_t limit = UINT64_MAX - UINT64_MAX % span;
  uint64_t x;
  do x = next();
  while (x >= limit);
  return lo + static_cast<int64_t>(x % span);
}

double Rng::normal(double mean, double stddev) {
  double u1;
  do u1 = uniform(0.0, 1.0);
  while (u1 <= 0.0);
  const double u2 = uniform(0.0, 1.0);
  return mean + stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

void Rng::fill_uniform(double* v, std::size_t n, double lo, double hi) {
  // Chunks draw from streams derived from one draw of this generator: deterministic for a given
  // seed whatever the thread count, and fast for the large sweeps (hundreds of millions).
  constexpr std::size_t kChunk = std::size_t{1} << 16;
  const uint64_t base = next();
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  parallel_for(static_cast<int64_t>(chunks), [&](int64_t c) {
    Rng local(base ^ (static_cast<uint64_t>(c) * 0xd1b54a32d192ed03ULL));
    const std::size_t b = static_cast<std::size_t>(c) * kChunk, e = std::min(n, b + kChunk);
    for (std::size_t i = b; i < e; ++i) v[i] = local.uniform(lo, hi);
  }, 16);
}

// ---- rounding
uint16_t bf16_bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // NaN stays NaN
  const uint32_t rounding_bias = 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>((u + rounding_bias) >> 16);
}

float bf16_to_float(uint16_t bits) {
  const uint32_t u = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

double round_to(Precision p, double x) {
  const float f = static_cast<float>(x);
  return p == Precision::fp32 ? static_cast<double>(f) : static_cast<double>(bf16_to_float(bf16_bits(f)));
}

uint16_t fp16_bits(double x) {
  uint64_t u;
  std::memcpy(&u, &x, 8);
  const auto sign = static_cast<uint16_t>((u >> 48) & 0x8000u);
  const double a = std::fabs(x);
  if (std::isnan(x)) return 0x7fff;  // CUDA's canonical half NaN
  // 65520 = 65504 + half an ulp: the tie between the largest half and 2^16 goes to the even 2^16.
  if (a >= 65520.0) return static_cast<uint16_t>(sign | 0x7c00u);
  if (a == 0.0) return sign;
  // a = f * 2^k with f in [0.5, 1): a lies in [2^(k-1), 2^k). Below 2^-14 (subnormal halves) the
  // quantum stays 2^-24. m = a / quantum is exact (a power-of-two scaling of a double).
  int k = 0;
  (void)std::frexp(a, &k);
  const int e = std::max(k - 1, -14);
  const double m = std::ldexp(a, 10 - e);  // in [0, 2048)
  // Round m to an integer, ties to even, whatever the floating-point rounding mode: m - floor(m)
  // is exact (m < 2^11).
  double r = std::floor(m);
  const double frac = m - r;
  if (frac > 0.5 || (frac == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
  // Normal: exponent field e + 15 over the 10 fraction bits of r - 1024 (the hidden bit), written
  // (e + 14) << 10 plus r; a carry of r to 2048 steps into the next exponent, and a subnormal
  // (e = -14, r < 1024) that rounds up to 1024 becomes the smallest normal: both come out right.
  const auto bits = static_cast<uint32_t>((e + 14) << 10) + static_cast<uint32_t>(r);
  return static_cast<uint16_t>(sign | bits);
}

double fp16_to_double(uint16_t bits) {
  const double sign = (bits & 0x8000u) ? -1.0 : 1.0;
  const int exp = (bits >> 10) & 0x1f;
  const int frac = bits & 0x3ff;
  if (exp == 0x1f) return frac ? std::numeric_limits<double>::quiet_NaN() : sign * HUGE_VAL;
  if (exp == 0) return sign * std::ldexp(static_cast<double>(frac), -24);
  return sign * std::ldexp(static_cast<double>(1024 + frac), exp - 25);
}

double round_elem(Elem e, Precision p, double x) {
  switch (e) {
    case Elem::real: return round_to(p, x);
    case Elem::f32: return static_cast<double>(static_cast<float>(x));
    case Elem::f16: return fp16_to_double(fp16_bits(x));
    case Elem::i32:
    case Elem::i64: return std::nearbyint(x);
  }
  return x;
}

Storage storage_of(Elem e, Precision p) {
  switch (e) {
    case Elem::real: return p == Precision::fp32 ? Storage::f32 : Storage::bf16;
    case Elem::f32: return Storage::f32;
    case Elem::f16: return Storage::f16;
    case Elem::i32: return Storage::i32;
    case Elem::i64: return Storage::i64;
  }
  return Storage::f32;
}

std::size_t elem_bytes(Elem e, Precision p) {
  switch (storage_of(e, p)) {
    case Storage::bf16:
    case Storage::f16: return 2;
    case Storage::f32:
    case Storage::i32: return 4;
    case Storage::i64: return 8;
  }
  return 4;
}

bool elem_is_integer(Elem e) { return e == Elem::i32 || e == Elem::i64; }

const char* to_string(Elem e) {
  switch (e) {
    case Elem::real: return "real";
    case Elem::f32: return "fp32";
    case Elem::f16: return "fp16";
    case Elem::i32: return "int32";
    case Elem::i64: return "int64";
  }
  return "?";
}

const char* c_type(Elem e, Precision p) {
  switch (storage_of(e, p)) {
    case Storage::f32: return "float";
    case Storage::bf16: return "__nv_bfloat16";
    case Storage::f16: return "__half";
    case Storage::i32: return "int";
    case Storage::i64: return "long long";
  }
  return "?";
}

}  // namespace mskb
