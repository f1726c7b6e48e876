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

// Uniform in [lo, hi): 53 random bits scaled, one fused multiply-add (correctly rounded on both sides).
MSKB_HD inline double counter_uniform(uint64_t key, uint64_t index, double lo, double hi) {
  const double u = static_cast<double>(counter_bits(key, index) >> 11) * (1.0 / 9007199254740992.0);
#if defined(__CUDA_ARCH__)
  return fma(hi - lo, u, lo);
#else
  return std::fma(hi - lo, u, lo);
#endif
}

// One input buffer's distribution: uniform in [lo, hi); with a wide range (wide_lo < wide_hi), one
// element in 16 is drawn from [wide_lo, wide_hi) instead (outliers: the activation tasks' inputs,
// where exp/tanh-based shortcuts overflow); with a first range (first_lo < first_hi), element 0 is
// drawn from it (e.g. a positive value, so that an instance of one element has a nonzero result).
// `integer` (the int32 input buffers, e.g. labels): integers of [lo, hi], both included, each as
// likely (lo and hi integers; no wide or first range).
struct UniformRange {
  double lo = 0.0, hi = 0.0;
  double wide_lo = 0.0, wide_hi = 0.0;
  double first_lo = 0.0, first_hi = 0.0;
  bool integer = false;
};

// Element `index` of the buffer `key` drawn from `r`: the same 53 scaled bits as counter_uniform,
// the wide range chosen by the low 4 bits of the same counter output (which those 53 do not use).
// Where r has neither a wide nor a first range this is counter_uniform(key, index, r.lo, r.hi).
MSKB_HD inline double counter_draw(uint64_t key, uint64_t index, const UniformRange& r) {
  const uint64_t bits = counter_bits(key, index);
  const double u = static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0);
  double a = r.lo, b = r.hi;
  if (r.integer) {
#if defined(__CUDA_ARCH__)
    const double v = floor(fma(b - a + 1.0, u, a));
#else
    const double v = std::floor(std::fma(b - a + 1.0, u, a));
#endif
    return v > b ? b : v;  // the FMA's rounding may reach hi + 1 only for u within 2^-53 of 1
  }
  if (index == 0 && r.first_lo < r.first_hi) {
    a = r.first_lo;
    b = r.first_hi;
  } else if (r.wide_lo < r.wide_hi && (bits & 15u) == 0) {
    a = r.wide_lo;
    b = r.wide_hi;
  }
#if defined(__CUDA_ARCH__)
  return fma(b - a, u, a);
#else
  return std::fma(b - a, u, a);
#endif
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
