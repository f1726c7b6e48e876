// Owns the counter-based input generator: element i of a buffer is a pure function of (key, i),
// so a buffer can be drawn in any order, by any number of threads, on the CPU or on the GPU, as
// the same values on every machine. Portable: no CUDA headers; compiled by nvcc it is host and
// device code. Only correctly rounded operations (integer mixing, one FMA, float/bfloat16 rounding
// to nearest even), so the host and the device produce the same bits.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define MSKB_HD __host__ __device__
#else
#define MSKB_HD
#endif

namespace mskb {

// SplitMix64's output function at position `index` of the stream `key`.
MSKB_HD inline uint64_t counter_bits(uint64_t key, uint64_t index) {
  uint64_t z = key + (index + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

namespace counter_detail {
MSKB_HD inline double fma_(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return fma(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
MSKB_HD inline double floor_(double x) {
#if defined(__CUDA_ARCH__)
  return floor(x);
#else
  return std::floor(x);
#endif
}
// The 53 high bits of a counter output as a uniform in [0, 1).
MSKB_HD inline double unit(uint64_t bits) { return static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0); }
// An integer of [lo, hi] from u in [0, 1) (the FMA's rounding may reach hi + 1 only for u within 2^-53 of 1).
MSKB_HD inline double integer_of(double lo, double hi, double u) {
  const double v = floor_(fma_(hi - lo + 1.0, u, lo));
  return v > hi ? hi : v;
}
// A stream derived from `key` (salt 1, 2, ...): the channels' offsets and spreads, the keys' exponents.
MSKB_HD inline uint64_t derived_key(uint64_t key, uint64_t salt) { return counter_bits(key ^ 0xC3A5C85C97CB3127ULL, salt); }
}  // namespace counter_detail

// Uniform in [lo, hi): 53 random bits scaled, one fused multiply-add (correctly rounded on both sides).
MSKB_HD inline double counter_uniform(uint64_t key, uint64_t index, double lo, double hi) {
  return counter_detail::fma_(hi - lo, counter_detail::unit(counter_bits(key, index)), lo);
}

// What a UniformRange draws besides a plain uniform (mix = none). Every mix is a pure function of
// (key, index) with correctly rounded operations only, so the CPU twin and the GPU draw the same bits.
enum class DrawMix : uint8_t {
  none,
  // Rows of `period` elements: element i with i % period >= split is drawn from [lo2, hi2) (no
  // outliers), the others as without a mix (e.g. silu_and_mul's gate | value rows).
  row_halves,
  // Channels (c = i % period) with an offset from [lo2, hi2) and a spread from [lo3, hi3) of their
  // own (counter draws of c from keys derived from `key`): element i is offset(c) + spread(c) *
  // U(lo, hi) (batch_norm: per-channel statistics matter).
  channels,
  // Ties: the mean of four uniforms on [lo, hi) (15 bits each: nearly normal, standard deviation
  // (hi - lo) / sqrt(48)), and every other draw (one random bit) snapped to the nearest multiple of
  // 1 / grid: exact ties at every grid level (top_k's tie rule).
  ties,
  // Sort keys: a quarter of the draws integers of [lo, hi] (duplicates, exact zeros), a quarter
  // uniform on [lo2, hi2), half signed magnitudes 2^e * m with the exponent e uniform among the
  // integers of [lo3, hi3] and the mantissa m uniform on [1, 2): a log-uniform spread over
  // [2^lo3, 2^(hi3 + 1)), no subnormals, no -0.
  keys,
  // Pairs: element i against element i of a partner input buffer (parameter `partner`, a plain
  // uniform draw; the draw sets partner_key and its range as [lo2, hi2)). 205 in 2048 (about one in
  // 10) equal to the partner's value (exact ties), 205 in 2048 the partner's value plus U(lo3, hi3)
  // (near ties), the rest independent from [lo, hi) (merge_attn_states: lse_b against lse_a).
  paired,
};

// One input buffer's distribution: uniform in [lo, hi); with a wide range (wide_lo < wide_hi), one
// element in 16 is drawn from [wide_lo, wide_hi) instead (outliers: the activation tasks' inputs,
// where exp/tanh-based shortcuts overflow); with a first range (first_lo < first_hi), element 0 is
// drawn from it (e.g. a positive value, so that an instance of one element has a nonzero result).
// `integer` (the int32 input buffers, e.g. labels): integers of [lo, hi], both included, each as
// likely (lo and hi integers; no wide or first range). `mix`: see DrawMix (real buffers only).
struct UniformRange {
  double lo = 0.0, hi = 0.0;
  double wide_lo = 0.0, wide_hi = 0.0;
  double first_lo = 0.0, first_hi = 0.0;
  bool integer = false;
  DrawMix mix = DrawMix::none;
  uint64_t period = 0, split = 0;  // row_halves, channels
  double lo2 = 0.0, hi2 = 0.0, lo3 = 0.0, hi3 = 0.0;
  double grid = 0.0;  // ties
  uint64_t partner = 0, partner_key = 0;  // paired: the partner's parameter index; its key (set by the draw)
};

// The mixes' factories (UniformRange is an aggregate: C++17 has no designated initializers).
// Gate | value rows of `period` elements, the value half from element `split` of each row.
inline constexpr UniformRange row_halves(UniformRange first_part, uint64_t period, uint64_t split, double lo2, double hi2) {
  UniformRange r = first_part;
  r.mix = DrawMix::row_halves;
  r.period = period;
  r.split = split;
  r.lo2 = lo2;
  r.hi2 = hi2;
  return r;
}
inline constexpr UniformRange channel_draws(double lo, double hi, uint64_t channels, double offset_lo, double offset_hi, double spread_lo,
                                            double spread_hi) {
  UniformRange r{lo, hi};
  r.mix = DrawMix::channels;
  r.period = channels;
  r.lo2 = offset_lo;
  r.hi2 = offset_hi;
  r.lo3 = spread_lo;
  r.hi3 = spread_hi;
  return r;
}
inline constexpr UniformRange tie_draws(double lo, double hi, double grid) {
  UniformRange r{lo, hi};
  r.mix = DrawMix::ties;
  r.grid = grid;
  return r;
}
inline constexpr UniformRange key_draws(double int_lo, double int_hi, double lo2, double hi2, double exp_lo, double exp_hi) {
  UniformRange r{int_lo, int_hi};
  r.mix = DrawMix::keys;
  r.lo2 = lo2;
  r.hi2 = hi2;
  r.lo3 = exp_lo;
  r.hi3 = exp_hi;
  return r;
}
// Buffer against the input buffer of parameter `partner`: ties, near ties (the partner's value plus
// U(near_lo, near_hi)) and independent draws from [lo, hi).
inline constexpr UniformRange paired_draws(double lo, double hi, uint64_t partner, double near_lo, double near_hi) {
  UniformRange r{lo, hi};
  r.mix = DrawMix::paired;
  r.partner = partner;
  r.lo3 = near_lo;
  r.hi3 = near_hi;
  return r;
}

// Element `index` of the buffer `key` drawn from `r`: the same 53 scaled bits as counter_uniform,
// the wide range chosen by the low 4 bits of the same counter output (which those 53 do not use).
// Where r has neither a wide nor a first range nor a mix this is counter_uniform(key, index, r.lo, r.hi).
MSKB_HD inline double counter_draw(uint64_t key, uint64_t index, const UniformRange& r) {
  using namespace counter_detail;
  const uint64_t bits = counter_bits(key, index);
  const double u = unit(bits);
  double a = r.lo, b = r.hi;
  if (r.integer) return integer_of(a, b, u);
  switch (r.mix) {
    case DrawMix::none: break;
    case DrawMix::row_halves:
      if (index % r.period >= r.split) return fma_(r.hi2 - r.lo2, u, r.lo2);
      break;
    case DrawMix::channels: {
      const uint64_t c = index % r.period;
      const double offset = counter_uniform(derived_key(key, 1), c, r.lo2, r.hi2);
      const double spread = counter_uniform(derived_key(key, 2), c, r.lo3, r.hi3);
      return fma_(spread, fma_(b - a, u, a), offset);
    }
    case DrawMix::ties: {
      // Four 15-bit uniforms from bits 0..59; their sum m < 2^17, so m * 2^-17 (their mean) is exact.
      const uint64_t m = (bits & 0x7fffu) + ((bits >> 15) & 0x7fffu) + ((bits >> 30) & 0x7fffu) + ((bits >> 45) & 0x7fffu);
      const double x = fma_(b - a, static_cast<double>(m) * (1.0 / 131072.0), a);
      if ((bits >> 63) == 0) return x;
      // Nearest grid level (halves away from zero), + 0.0: never -0.
#if defined(__CUDA_ARCH__)
      return round(x * r.grid) / r.grid + 0.0;
#else
      return std::round(x * r.grid) / r.grid + 0.0;
#endif
    }
    case DrawMix::keys: {
      const uint64_t kind = bits & 3u;  // low bits: not among u's 53
      if (kind == 0) return integer_of(a, b, u);
      if (kind == 1) return fma_(r.hi2 - r.lo2, u, r.lo2);
      const double e = integer_of(r.lo3, r.hi3, unit(counter_bits(derived_key(key, 3), index)));
#if defined(__CUDA_ARCH__)
      const double mag = ldexp(1.0 + u, static_cast<int>(e));
#else
      const double mag = std::ldexp(1.0 + u, static_cast<int>(e));
#endif
      return ((bits >> 2) & 1u) != 0 ? -mag : mag;
    }
    case DrawMix::paired: {
      const uint64_t pick = bits & 2047u;  // low bits: not among u's 53
      if (pick >= 410) break;
      const double p = counter_uniform(r.partner_key, index, r.lo2, r.hi2);
      return pick < 205 ? p : p + fma_(r.hi3 - r.lo3, u, r.lo3);
    }
  }
  if (index == 0 && r.first_lo < r.first_hi) {
    a = r.first_lo;
    b = r.first_hi;
  } else if (r.wide_lo < r.wide_hi && (bits & 15u) == 0) {
    a = r.wide_lo;
    b = r.wide_hi;
  }
  return fma_(b - a, u, a);
}

// Float bits -> bfloat16 bits, round to nearest even (NaN stays NaN): the host's bf16_bits.
MSKB_HD inline uint16_t bf16_bits_of(uint32_t u) {
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

MSKB_HD inline uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}

}  // namespace mskb
