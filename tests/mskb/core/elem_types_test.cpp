// The fp16 and int64 element types (mskb/core/task.hpp, mskb/core/instance.hpp): the host fp16
// conversion is correctly rounded straight from the double (every half round-trips, every midpoint
// between two halves ties to even, one double ulp either side of it goes to the nearer half,
// subnormals, overflow, no double rounding through float) and gives CUDA's own __double2half bits;
// int64 elements encode and decode exactly beyond 2^31; compare_encoded holds fp16 outputs to the
// tolerance and int64 ones exactly, and tells the 0xFF poison from a written value; the signature
// names __half and long long; an int64 scalar reaches the entry point intact through invoke.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "mskb/core/generators.hpp"
#include "mskb/core/instance.hpp"
#include "mskb/core/invoke.hpp"
#include "mskb/core/task.hpp"
#include "mskb/util/process.hpp"

namespace fs = std::filesystem;

namespace mskb {
namespace {

bool is_nan_half(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }

TEST(Fp16, KnownValues) {
  EXPECT_EQ(fp16_bits(1.0), 0x3c00);
  EXPECT_EQ(fp16_bits(-2.0), 0xc000);
  EXPECT_EQ(fp16_bits(0.0), 0x0000);
  EXPECT_EQ(fp16_bits(-0.0), 0x8000);
  EXPECT_EQ(fp16_bits(0.1), 0x2e66);
  EXPECT_EQ(fp16_bits(1.0 / 3.0), 0x3555);
  EXPECT_EQ(fp16_bits(65504.0), 0x7bff);  // the largest half
  EXPECT_EQ(fp16_to_double(0x7bff), 65504.0);
  EXPECT_EQ(fp16_to_double(0x2e66), 0.0999755859375);
  EXPECT_EQ(fp16_to_double(0x3555), 0.333251953125);
  // Ties to even: 1 + 2^-11 is halfway between 1 (even) and 1 + 2^-10; 1 + 3*2^-11 between
  // 1 + 2^-10 (odd) and 1 + 2^-9 (even).
  EXPECT_EQ(fp16_bits(1.0 + 0x1p-11), 0x3c00);
  EXPECT_EQ(fp16_bits(1.0 + 3 * 0x1p-11), 0x3c02);
  EXPECT_EQ(fp16_bits(-(1.0 + 3 * 0x1p-11)), 0xbc02);
  // Straight from the double: through float, 1 + 2^-11 + 2^-40 would become the tie 1 + 2^-11
  // and round down to 1; it is above the midpoint, so it rounds up.
  EXPECT_EQ(static_cast<double>(static_cast<float>(1.0 + 0x1p-11 + 0x1p-40)), 1.0 + 0x1p-11);
  EXPECT_EQ(fp16_bits(1.0 + 0x1p-11 + 0x1p-40), 0x3c01);
  EXPECT_EQ(fp16_bits(1.0 + 0x1p-11 - 0x1p-40), 0x3c00);
  // Overflow: 65520 is the tie between 65504 and 2^16: even, so infinity; just below stays finite.
  EXPECT_EQ(fp16_bits(65520.0), 0x7c00);
  EXPECT_EQ(fp16_bits(-65520.0), 0xfc00);
  EXPECT_EQ(fp16_bits(std::nextafter(65520.0, 0.0)), 0x7bff);
  EXPECT_EQ(fp16_bits(1e300), 0x7c00);
  EXPECT_EQ(fp16_bits(HUGE_VAL), 0x7c00);
  EXPECT_EQ(fp16_bits(-HUGE_VAL), 0xfc00);
  EXPECT_EQ(fp16_to_double(0x7c00), HUGE_VAL);
  EXPECT_EQ(fp16_to_double(0xfc00), -HUGE_VAL);
  EXPECT_EQ(fp16_bits(std::numeric_limits<double>::quiet_NaN()), 0x7fff);  // CUDA's canonical NaN
  EXPECT_EQ(fp16_bits(-std::numeric_limits<double>::quiet_NaN()), 0x7fff);
  EXPECT_TRUE(std::isnan(fp16_to_double(0x7fff)));
  EXPECT_TRUE(std::isnan(fp16_to_double(0xFFFF)));  // the poison pattern is a NaN
  // Subnormals: 2^-24 is the smallest; 2^-25 ties to 0 (even), a hair above it rounds to 2^-24;
  // 3 * 2^-25 ties to 2 * 2^-24 (even); the largest subnormal rounds up into the smallest normal.
  EXPECT_EQ(fp16_bits(0x1p-24), 0x0001);
  EXPECT_EQ(fp16_to_double(0x0001), 0x1p-24);
  EXPECT_EQ(fp16_bits(0x1p-25), 0x0000);
  EXPECT_EQ(fp16_bits(-0x1p-25), 0x8000);
  EXPECT_EQ(fp16_bits(std::nextafter(0x1p-25, 1.0)), 0x0001);
  EXPECT_EQ(fp16_bits(3 * 0x1p-25), 0x0002);
  EXPECT_EQ(fp16_bits(5 * 0x1p-25), 0x0002);
  EXPECT_EQ(fp16_bits(7 * 0x1p-25), 0x0004);
  EXPECT_EQ(fp16_bits(0x1p-14), 0x0400);
  EXPECT_EQ(fp16_to_double(0x03ff), 1023 * 0x1p-24);
  EXPECT_EQ(fp16_bits(0x1p-14 - 0x1p-25), 0x0400);  // the tie between 0x03ff (odd) and 0x0400
  EXPECT_EQ(fp16_bits(std::nextafter(0x1p-14 - 0x1p-25, 0.0)), 0x03ff);
  EXPECT_EQ(fp16_bits(1e-300), 0x0000);
  EXPECT_EQ(fp16_bits(std::numeric_limits<double>::denorm_min()), 0x0000);
  EXPECT_EQ(fp16_bits(-std::numeric_limits<double>::denorm_min()), 0x8000);
}

// Every one of the 65536 bit patterns: decoding is exact and strictly increasing over the
// positive finite halves, and encoding the decoded value gives the pattern back (NaNs: a NaN).
TEST(Fp16, EveryBitPatternRoundTrips) {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    const auto bits = static_cast<uint16_t>(h);
    const double v = fp16_to_double(bits);
    if (is_nan_half(bits)) {
      EXPECT_TRUE(std::isnan(v)) << std::hex << h;
      EXPECT_EQ(fp16_bits(v), 0x7fff) << std::hex << h;
      continue;
    }
    ASSERT_EQ(fp16_bits(v), bits) << std::hex << h << " " << v;
    EXPECT_EQ(std::signbit(v), (h & 0x8000u) != 0) << std::hex << h;
    EXPECT_EQ(fp16_to_double(static_cast<uint16_t>(h ^ 0x8000u)), -v) << std::hex << h;
    if (h > 0 && h <= 0x7c00u) {
      EXPECT_LT(fp16_to_double(static_cast<uint16_t>(h - 1)), v) << std::hex << h;
    }
    // A float holds every half exactly: the float path agrees.
    EXPECT_EQ(fp16_bits(static_cast<double>(static_cast<float>(v))), bits) << std::hex << h;
  }
}

// Between every two neighbouring finite halves of the same sign: the midpoint goes to the even
// one, the doubles just below and above it to the nearer one (the 0x7bff/2^16 midpoint: infinity).
TEST(Fp16, EveryMidpointTiesToEven) {
  for (uint32_t h = 0; h < 0x7c00u; ++h) {
    const double lo = fp16_to_double(static_cast<uint16_t>(h));
    const double hi = h + 1 == 0x7c00u ? 65536.0 : fp16_to_double(static_cast<uint16_t>(h + 1));
    const double mid = (lo + hi) / 2;  // exact: one more bit than a half has
    ASSERT_GT(mid, lo);
    ASSERT_LT(mid, hi);
    const auto even = static_cast<uint16_t>(h % 2 == 0 ? h : h + 1);
    for (double sign : {1.0, -1.0}) {
      const uint16_t s = sign > 0 ? 0 : 0x8000;
      ASSERT_EQ(fp16_bits(sign * mid), s | even) << std::hex << h;
      ASSERT_EQ(fp16_bits(sign * std::nextafter(mid, 0.0)), s | h) << std::hex << h;
      ASSERT_EQ(fp16_bits(sign * std::nextafter(mid, HUGE_VAL)), s | (h + 1)) << std::hex << h;
      // Anywhere strictly inside the lower or upper half of the gap.
      ASSERT_EQ(fp16_bits(sign * (lo + (mid - lo) / 4)), s | h) << std::hex << h;
      ASSERT_EQ(fp16_bits(sign * (mid + (hi - mid) / 4)), s | (h + 1)) << std::hex << h;
    }
  }
}

// The doubles CUDA's __double2half (the host half of cuda_fp16.h, the same rounding as the
// device's cvt.rn.f16.f64) is asked about: every half, every midpoint and its neighbours, random
// doubles over the whole half range and beyond, and the special values.
std::vector<double> probe_doubles() {
  std::vector<double> v;
  for (uint32_t h = 0; h < 0x7c00u; ++h) {
    const double lo = fp16_to_double(static_cast<uint16_t>(h));
    const double hi = h + 1 == 0x7c00u ? 65536.0 : fp16_to_double(static_cast<uint16_t>(h + 1));
    const double mid = (lo + hi) / 2;
    for (double x : {lo, mid, std::nextafter(mid, 0.0), std::nextafter(mid, HUGE_VAL)}) {
      v.push_back(x);
      v.push_back(-x);
    }
  }
  Rng rng(2024);
  for (int i = 0; i < 200000; ++i) {
    const double m = rng.uniform(1.0, 2.0);
    const int e = static_cast<int>(rng.uniform_int(-30, 17));
    v.push_back((i % 2 ? -1.0 : 1.0) * std::ldexp(m, e));
  }
  for (double x : {HUGE_VAL, -HUGE_VAL, 1e300, -1e300, 1e-300, -1e-300, std::numeric_limits<double>::denorm_min(),
                   std::numeric_limits<double>::quiet_NaN(), 65520.0, 65519.999, 0x1p-25, 0x1p-24, 0x1p-14})
    v.push_back(x);
  return v;
}

TEST(Fp16, MatchesCudaDouble2Half) {
#ifndef MSKB_TEST_NVCC
  GTEST_SKIP() << "no CUDA toolkit configured";
#else
  const fs::path include = fs::path(MSKB_TEST_NVCC).parent_path().parent_path() / "include";
  std::error_code ec;
  if (!fs::is_regular_file(include / "cuda_fp16.h", ec)) GTEST_SKIP() << "no " << (include / "cuda_fp16.h").string();
  const fs::path dir = fs::path(::testing::TempDir()) / ("mskb_elem_types_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // The host compiler with the toolkit's headers: cuda_fp16.h's host code path, nothing linked.
  std::ofstream(dir / "probe.cpp") << R"(#include <cuda_fp16.h>
#include <cstdio>
#include <cstring>
int main(int argc, char** argv) {
  if (argc != 3) return 2;
  FILE* in = std::fopen(argv[1], "rb");
  FILE* out = std::fopen(argv[2], "wb");
  if (!in || !out) return 3;
  double x;
  while (std::fread(&x, sizeof x, 1, in) == 1) {
    const __half h = __double2half(x);
    unsigned short u;
    std::memcpy(&u, &h, sizeof u);
    std::fwrite(&u, sizeof u, 1, out);
  }
  std::fclose(in);
  return std::fclose(out) == 0 ? 0 : 4;
}
)";
  const char* cxx = std::getenv("MSKB_HOST_CXX");
  if (!cxx || !*cxx) cxx = std::getenv("CXX");
  std::string out;
  ASSERT_EQ(run_command({cxx && *cxx ? cxx : "c++", "-std=c++17", "-O1", "-I" + include.string(), (dir / "probe.cpp").string(), "-o",
                         (dir / "probe").string()},
                        out, 300),
            0)
      << out;
  const std::vector<double> xs = probe_doubles();
  {
    std::ofstream f(dir / "in.bin", std::ios::binary);
    f.write(reinterpret_cast<const char*>(xs.data()), static_cast<std::streamsize>(xs.size() * sizeof(double)));
  }
  ASSERT_EQ(run_command({(dir / "probe").string(), (dir / "in.bin").string(), (dir / "out.bin").string()}, out, 300), 0) << out;
  std::vector<uint16_t> cuda(xs.size());
  std::ifstream f(dir / "out.bin", std::ios::binary);
  f.read(reinterpret_cast<char*>(cuda.data()), static_cast<std::streamsize>(cuda.size() * sizeof(uint16_t)));
  ASSERT_EQ(static_cast<std::size_t>(f.gcount()), cuda.size() * sizeof(uint16_t));
  std::size_t differ = 0;
  for (std::size_t i = 0; i < xs.size(); ++i)
    if (fp16_bits(xs[i]) != cuda[i] && differ++ < 10)
      ADD_FAILURE() << std::hexfloat << xs[i] << ": mskb " << std::hex << fp16_bits(xs[i]) << ", CUDA " << cuda[i];
  EXPECT_EQ(differ, 0u) << "of " << xs.size();
  EXPECT_GT(xs.size(), 450000u);
  fs::remove_all(dir, ec);
#endif
}

TEST(ElemTypes, SizesNamesAndRounding) {
  for (Precision p : {Precision::fp32, Precision::bf16}) {
    EXPECT_EQ(elem_bytes(Elem::f16, p), 2u);
    EXPECT_EQ(elem_bytes(Elem::i64, p), 8u);
    EXPECT_EQ(elem_bytes(Elem::i32, p), 4u);
    EXPECT_EQ(elem_bytes(Elem::f32, p), 4u);
    EXPECT_EQ(storage_of(Elem::f16, p), Storage::f16);  // fp16 whatever the precision
    EXPECT_EQ(storage_of(Elem::i64, p), Storage::i64);
    EXPECT_STREQ(c_type(Elem::f16, p), "__half");
    EXPECT_STREQ(c_type(Elem::i64, p), "long long");
    EXPECT_EQ(round_elem(Elem::f16, p, 0.1), 0.0999755859375);
    EXPECT_EQ(round_elem(Elem::f16, p, 1e6), HUGE_VAL);
    EXPECT_EQ(round_elem(Elem::i64, p, 4294967297.4), 4294967297.0);
    EXPECT_EQ(round_elem(Elem::i64, p, -3000000000.6), -3000000001.0);
    EXPECT_EQ(round_scalar(ScalarType::i64, p, 8589934594.2), 8589934594.0);
  }
  EXPECT_EQ(elem_bytes(Elem::real, Precision::bf16), 2u);
  EXPECT_STREQ(c_type(Elem::real, Precision::bf16), "__nv_bfloat16");
  EXPECT_STREQ(c_type(Elem::i32, Precision::bf16), "int");
  EXPECT_STREQ(to_string(Elem::f16), "fp16");
  EXPECT_STREQ(to_string(Elem::i64), "int64");
  EXPECT_STREQ(to_string(Elem::i32), "int32");
  EXPECT_STREQ(to_string(Elem::f32), "fp32");
  EXPECT_STREQ(to_string(Elem::real), "real");
  EXPECT_TRUE(elem_is_integer(Elem::i64));
  EXPECT_TRUE(elem_is_integer(Elem::i32));
  EXPECT_FALSE(elem_is_integer(Elem::f16));
  EXPECT_FALSE(elem_is_integer(Elem::real));
}

TEST(ElemTypes, SignatureNamesHalfAndLongLong) {
  TaskSpec s;
  s.name = "mix";
  s.params = {in("x", Elem::f16), in("idx", Elem::i64), out("y", Elem::f32), out("h", Elem::f16), out("n", Elem::i64), real_arg("a"),
              int_arg("N")};
  Param big;
  big.name = "off";
  big.is_buffer = false;
  big.scalar = ScalarType::i64;
  s.params.push_back(big);
  EXPECT_EQ(s.signature(Precision::fp32),
            "extern \"C\" void mix(const __half* x, const long long* idx, float* y, __half* h, long long* n, float a, int N, "
            "long long off)");
  EXPECT_EQ(s.signature(Precision::bf16),
            "extern \"C\" void mix_bf16(const __half* x, const long long* idx, float* y, __half* h, long long* n, __nv_bfloat16 a, "
            "int N, long long off)");
}

TEST(ElemTypes, EncodeDecodeBytes) {
  unsigned char b[8];
  for (Precision p : {Precision::fp32, Precision::bf16}) {
    encode_elem(0.1, Elem::f16, p, b);
    EXPECT_EQ(b[0], 0x66);  // little endian 0x2e66
    EXPECT_EQ(b[1], 0x2e);
    EXPECT_EQ(decode_elem(b, Elem::f16, p), 0.0999755859375);
    // Straight from the double: no double rounding through float.
    encode_elem(1.0 + 0x1p-11 + 0x1p-40, Elem::f16, p, b);
    EXPECT_EQ(decode_elem(b, Elem::f16, p), 1.0 + 0x1p-10);
    for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1} << 31, (int64_t{1} << 31) + 1, -(int64_t{1} << 31) - 1,
                      (int64_t{1} << 40) + 3, -(int64_t{1} << 53), int64_t{1} << 53, int64_t{123456789012345}}) {
      encode_elem(static_cast<double>(v), Elem::i64, p, b);
      int64_t got;
      std::memcpy(&got, b, 8);
      EXPECT_EQ(got, v);
      EXPECT_EQ(decode_elem(b, Elem::i64, p), static_cast<double>(v));
    }
    // Outside int64: saturated, never undefined.
    encode_elem(1e300, Elem::i64, p, b);
    int64_t sat;
    std::memcpy(&sat, b, 8);
    EXPECT_EQ(sat, std::numeric_limits<int64_t>::max());
    encode_elem(-1e300, Elem::i64, p, b);
    std::memcpy(&sat, b, 8);
    EXPECT_EQ(sat, std::numeric_limits<int64_t>::min());
    // The poison bytes: a NaN in fp16, -1 in int64.
    std::memset(b, 0xFF, 8);
    EXPECT_TRUE(std::isnan(decode_elem(b, Elem::f16, p)));
    EXPECT_EQ(decode_elem(b, Elem::i64, p), -1.0);
  }
  // The existing types through the same helpers.
  encode_elem(0.1, Elem::real, Precision::bf16, b);
  EXPECT_EQ(decode_elem(b, Elem::real, Precision::bf16), round_to(Precision::bf16, 0.1));
  encode_elem(0.1, Elem::real, Precision::fp32, b);
  EXPECT_EQ(decode_elem(b, Elem::real, Precision::fp32), static_cast<double>(0.1f));
  encode_elem(-7, Elem::i32, Precision::bf16, b);
  EXPECT_EQ(decode_elem(b, Elem::i32, Precision::bf16), -7.0);
}

// encode_inputs lays an fp16 and an int64 input into the input region as the kernel reads them.
TEST(ElemTypes, EncodeInputsWritesHalfAndInt64) {
  TaskSpec s;
  s.name = "enc";
  s.params = {in("x", Elem::f16), in("idx", Elem::i64), out("y", Elem::f32), inplace("z", Elem::f16)};
  Args a(4);
  a[0].data = {0.5, -0.1, 65504.0, 0x1p-24, 1.0 + 0x1p-11 + 0x1p-40};
  a[1].data = {4294967296.0, -4294967297.0, -1.0};
  a[2].data.assign(3, 0.0);
  a[3].data = {3.0, 1e5};
  for (Precision p : {Precision::fp32, Precision::bf16}) {
    const InstanceLayout l = instance_layout(s, p, {5, 3, 3, 2}, 64);
    EXPECT_EQ(l.params[0].bytes, 10u);
    EXPECT_EQ(l.params[1].bytes, 24u);
    EXPECT_EQ(l.params[2].bytes, 12u);
    EXPECT_EQ(l.params[3].bytes, 4u);
    std::vector<unsigned char> region(l.input_bytes, 0);
    encode_inputs(s, p, a, l, region.data());
    std::vector<uint16_t> h(5);
    std::memcpy(h.data(), region.data() + l.params[0].in_offset, 10);
    EXPECT_EQ(h, (std::vector<uint16_t>{0x3800, 0xae66, 0x7bff, 0x0001, 0x3c01}));
    std::vector<int64_t> i(3);
    std::memcpy(i.data(), region.data() + l.params[1].in_offset, 24);
    EXPECT_EQ(i, (std::vector<int64_t>{int64_t{1} << 32, -(int64_t{1} << 32) - 1, -1}));
    std::vector<uint16_t> z(2);
    std::memcpy(z.data(), region.data() + l.params[3].in_offset, 4);
    EXPECT_EQ(z, (std::vector<uint16_t>{0x4200, 0x7c00}));  // 1e5 overflows to +inf
  }
}

// fp16 outputs: straight from their bytes, the verdicts and counts compare_buffer gives on the
// decoded doubles (several chunks, NaNs, infinities, poison, values outside the tolerance).
// int64 outputs: exact, beyond 2^31 and 2^32; -1 (all 0xFF) is unwritten only where poisoned.
TEST(ElemTypes, CompareEncodedHalfWithToleranceInt64Exactly) {
  const std::size_t n = (std::size_t{1} << 21) + 777;
  Rng rng(11);
  for (Elem elem : {Elem::f16, Elem::i64}) {
    const std::size_t eb = elem_bytes(elem, Precision::fp32);
    HostData want(n);
    if (elem == Elem::f16) {  // magnitudes in [0.5, 8): the relative changes below decide alone
      rng.fill_uniform(want, 0.5, 8.0);
      for (std::size_t i = 0; i < n; ++i) want[i] = round_elem(Elem::f16, Precision::fp32, i % 2 ? -want[i] : want[i]);
    } else {
      for (auto& w : want) w = static_cast<double>(rng.uniform_int(-(int64_t{1} << 50), int64_t{1} << 50));
    }
    std::vector<unsigned char> bytes(n * eb);
    std::vector<double> got(n);
    std::vector<unsigned char> mask(n, 0);
    std::size_t unwritten = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double g = want[i];
      if (i % 9 == 1) g = elem == Elem::f16 ? g * (1 + 3e-3) : g + 1;  // outside rtol 1e-3 / not exact
      if (i % 13 == 2 && elem == Elem::f16) g = g * (1 + 2e-4);       // within the tolerance (or rounds back)
      if (i % 100003 == 5 && elem == Elem::f16) g = NAN;
      if (i % 200003 == 9 && elem == Elem::f16) g = i % 2 ? INFINITY : -INFINITY;
      unsigned char* dst = bytes.data() + i * eb;
      if (i % 150001 == 11) {
        std::memset(dst, 0xFF, eb);
        mask[i] = 1;
        ++unwritten;
      } else {
        encode_elem(g, elem, Precision::fp32, dst);
      }
      got[i] = decode_elem(dst, elem, Precision::fp32);
    }
    const Tolerance tol{1e-6, 1e-3};
    const bool exact = elem_is_integer(elem);
    for (bool poisoned : {true, false}) {
      SCOPED_TRACE(std::string(to_string(elem)) + (poisoned ? " poisoned" : ""));
      CompareResult a, b;
      compare_buffer("Y", got, poisoned ? mask : std::vector<unsigned char>{}, want, tol, exact, a);
      compare_encoded("Y", bytes.data(), bytes.size(), elem, Precision::bf16, poisoned ? 0xFF : -1, want, tol, exact, b);
      EXPECT_FALSE(b.ok);
      EXPECT_EQ(a.ok, b.ok);
      EXPECT_EQ(b.checked, n);
      EXPECT_EQ(a.mismatches, b.mismatches);
      EXPECT_EQ(a.nans, b.nans);
      EXPECT_EQ(a.unwritten, b.unwritten);
      EXPECT_EQ(b.unwritten, poisoned ? unwritten : 0u);
      EXPECT_EQ(a.max_abs_err, b.max_abs_err);
      EXPECT_EQ(a.max_rel_err, b.max_rel_err);
      EXPECT_EQ(a.first_bad, b.first_bad);
      // What was written decides, independently of compare_buffer: every 9th element is wrong
      // (3e-3 off: beyond rtol 1e-3 after rounding to fp16; int64: off by one), the NaNs and
      // infinities written into fp16 fail, and a poisoned element fails (read as unwritten where
      // poison is checked; otherwise as a NaN in fp16 and as -1 in int64).
      std::size_t expect_bad = 0, expect_nans = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const bool pois = mask[i] != 0;
        const bool nan_written = elem == Elem::f16 && i % 100003 == 5 && i % 200003 != 9;
        const bool inf_written = elem == Elem::f16 && i % 200003 == 9;
        bool bad = pois ? poisoned || elem == Elem::f16 || want[i] != -1.0 : i % 9 == 1 || nan_written || inf_written;
        expect_bad += bad;
        expect_nans += (pois && !poisoned && elem == Elem::f16) || (!pois && nan_written);
      }
      EXPECT_EQ(b.mismatches, expect_bad);
      EXPECT_EQ(b.nans, expect_nans);
      EXPECT_GT(expect_bad, n / 9);
    }
  }
  // A clean int64 output passes with a zero tolerance; one off by one at 2^40 fails exactly there.
  HostData want = {4294967296.0, -4294967297.0, 1099511627776.0, -1.0, 0.0};
  std::vector<unsigned char> bytes(want.size() * 8);
  for (std::size_t i = 0; i < want.size(); ++i) encode_elem(want[i], Elem::i64, Precision::fp32, bytes.data() + 8 * i);
  CompareResult ok;
  compare_encoded("n", bytes.data(), bytes.size(), Elem::i64, Precision::fp32, -1, want, {1e9, 1.0}, true, ok);
  EXPECT_TRUE(ok.ok);
  EXPECT_EQ(ok.checked, 5u);
  // -1 as an overwrite output: its bytes are the poison, so it reads as unwritten (like int32).
  CompareResult minus_one;
  compare_encoded("n", bytes.data(), bytes.size(), Elem::i64, Precision::fp32, 0xFF, want, {0, 0}, true, minus_one);
  EXPECT_EQ(minus_one.unwritten, 1u);
  encode_elem(1099511627777.0, Elem::i64, Precision::fp32, bytes.data() + 16);
  CompareResult off;
  compare_encoded("n", bytes.data(), bytes.size(), Elem::i64, Precision::fp32, -1, want, {1e9, 1.0}, true, off);
  EXPECT_FALSE(off.ok);
  ASSERT_EQ(off.first_bad, std::vector<std::size_t>{2});
  EXPECT_EQ(off.first_bad_got[0], 1099511627777.0);
  // fp16 within atol + rtol*|ref| passes, one half-ulp beyond fails; the poison 0xFFFF is unwritten, 0x7e00 a NaN.
  const HostData hw = {1.0, 2.0, 0.5, 3.0};
  std::vector<uint16_t> hb = {fp16_bits(1.0 + 0x1p-10), fp16_bits(2.0), fp16_bits(0.5), fp16_bits(3.0)};
  CompareResult hok;
  compare_encoded("h", reinterpret_cast<const unsigned char*>(hb.data()), 8, Elem::f16, Precision::fp32, 0xFF, hw, {0, 0x1p-10}, false, hok);
  EXPECT_TRUE(hok.ok);
  hb[0] = fp16_bits(1.0 + 0x1p-9);
  CompareResult hbad;
  compare_encoded("h", reinterpret_cast<const unsigned char*>(hb.data()), 8, Elem::f16, Precision::fp32, 0xFF, hw, {0, 0x1p-10}, false, hbad);
  EXPECT_FALSE(hbad.ok);
  EXPECT_EQ(hbad.mismatches, 1u);
  hb = {0xFFFF, 0x7e00, fp16_bits(0.5), fp16_bits(3.0)};
  CompareResult hpois;
  compare_encoded("h", reinterpret_cast<const unsigned char*>(hb.data()), 8, Elem::f16, Precision::fp32, 0xFF, hw, {0, 0x1p-10}, false, hpois);
  EXPECT_EQ(hpois.unwritten, 1u);
  EXPECT_EQ(hpois.nans, 1u);
  EXPECT_EQ(hpois.mismatches, 2u);
  EXPECT_THROW(compare_encoded("h", reinterpret_cast<const unsigned char*>(hb.data()), 6, Elem::f16, Precision::fp32, -1, hw, {0, 0}, false, hpois),
               std::logic_error);
}

// Uniform-input (GPU-drawn) tasks know float, bf16 and int32 buffers only.
TEST(ElemTypes, UniformInputsRefuseHalfAndInt64) {
  for (Elem e : {Elem::f16, Elem::i64}) {
    TaskSpec s;
    s.name = "u";
    s.params = {in("x"), out("y", e)};
    UniformInputs u;
    u.layout = [](const Shape&, Rng&, std::vector<std::size_t>& el, std::vector<double>&) { el = {4, 4}; };
    u.range = {{-1.0, 1.0}, {0.0, 0.0}};
    EXPECT_THROW(set_uniform_inputs(s, u), std::logic_error) << to_string(e);
  }
}

// An int64 scalar (a task file's `type = "int64"` scalar) through the wide prototype: all 64 bits,
// in a register and on the stack, between pointers, ints and floats.
struct SeenI64 {
  const void* p = nullptr;
  long long a = 0, b = 0;
  int n = 0;
  float f = 0;
} seen64;
extern "C" void sig_plifl(const void* p, long long a, int n, float f, long long b) {
  seen64.p = p;
  seen64.a = a;
  seen64.n = n;
  seen64.f = f;
  seen64.b = b;
}
// Seven integer-class arguments before the last long long: it travels on the x86-64 stack.
extern "C" void sig_pppppppl(const void*, const void*, const void*, const void*, const void*, const void*, const void* p, long long b) {
  seen64.p = p;
  seen64.b = b;
}

TEST(ElemTypes, InvokePassesInt64Scalars) {
  int dummy[7] = {};
  std::vector<Slot> slots(5);
  slots[0].kind = Slot::pointer;
  slots[0].ptr = &dummy[0];
  slots[1].kind = Slot::i64;
  slots[1].l = 0x123456789abcdef0LL;
  slots[2].kind = Slot::i32;
  slots[2].i = -5;
  slots[3].kind = Slot::f32;
  slots[3].f = 2.5f;
  slots[4].kind = Slot::i64;
  slots[4].l = -(1LL << 40) - 3;
  invoke(reinterpret_cast<void*>(&sig_plifl), slots);
  EXPECT_EQ(seen64.p, &dummy[0]);
  EXPECT_EQ(seen64.a, 0x123456789abcdef0LL);
  EXPECT_EQ(seen64.n, -5);
  EXPECT_EQ(seen64.f, 2.5f);
  EXPECT_EQ(seen64.b, -(1LL << 40) - 3);
  std::vector<Slot> many(8);
  for (int i = 0; i < 7; ++i) {
    many[static_cast<std::size_t>(i)].kind = Slot::pointer;
    many[static_cast<std::size_t>(i)].ptr = &dummy[i];
  }
  many[7].kind = Slot::i64;
  many[7].l = (1LL << 62) + 12345;
  invoke(reinterpret_cast<void*>(&sig_pppppppl), many);
  EXPECT_EQ(seen64.p, &dummy[6]);
  EXPECT_EQ(seen64.b, (1LL << 62) + 12345);
}

}  // namespace
}  // namespace mskb
