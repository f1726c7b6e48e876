// mskb::invoke calls entry points through one wide prototype (see invoke.hpp). These functions
// have the argument mixes the 50 tasks use, including more than six integer-class arguments
// (stack-passed) and interleaved floats; each records what it received.
#include <gtest/gtest.h>

#include <cstring>

#include "mskb/core/invoke.hpp"

namespace {

struct Seen {
  const void* p[4] = {};
  int i[8] = {};
  float f[4] = {};
  uint16_t h = 0;
} seen;

extern "C" void sig_ppi(const float* a, float* b, int n) {
  seen.p[0] = a;
  seen.p[1] = b;
  seen.i[0] = n;
}
// high_order_contraction: 3 pointers + 5 ints = 8 integer-class arguments (2 on the stack).
extern "C" void sig_pppiiiii(const float* a, const float* b, float* c, int i0, int i1, int i2, int i3, int i4) {
  seen.p[0] = a;
  seen.p[1] = b;
  seen.p[2] = c;
  seen.i[0] = i0;
  seen.i[1] = i1;
  seen.i[2] = i2;
  seen.i[3] = i3;
  seen.i[4] = i4;
}
// selu: floats after ints; monte_carlo: floats between pointers and an int.
extern "C" void sig_ppiff(float* o, const float* in, int n, float alpha, float lambda) {
  seen.p[0] = o;
  seen.p[1] = in;
  seen.i[0] = n;
  seen.f[0] = alpha;
  seen.f[1] = lambda;
}
extern "C" void sig_ppffi(const float* y, float* r, float a, float b, int n) {
  seen.p[0] = y;
  seen.p[1] = r;
  seen.f[0] = a;
  seen.f[1] = b;
  seen.i[0] = n;
}
// matrix_scalar_mul bf16: a 2-byte struct by value travels as an integer-class argument.
struct Bf16 {
  uint16_t x;
};
extern "C" void sig_ppbii(const void* a, void* b, Bf16 s, int m, int n) {
  seen.p[0] = a;
  seen.p[1] = b;
  seen.h = s.x;
  seen.i[0] = m;
  seen.i[1] = n;
}
// triangle_attention: 5 pointers + 4 ints = 9 integer-class arguments.
extern "C" void sig_pppppiiii(const float* q, const float* k, const float* v, const float* m, float* o, int b, int h, int s, int d) {
  seen.p[0] = q;
  seen.p[1] = k;
  seen.p[2] = v;
  seen.p[3] = o;
  (void)m;
  seen.i[0] = b;
  seen.i[1] = h;
  seen.i[2] = s;
  seen.i[3] = d;
}

mskb::Slot P(const void* p) {
  mskb::Slot s;
  s.kind = mskb::Slot::pointer;
  s.ptr = const_cast<void*>(p);
  return s;
}
mskb::Slot I(int v) {
  mskb::Slot s;
  s.kind = mskb::Slot::i32;
  s.i = v;
  return s;
}
mskb::Slot F(float v) {
  mskb::Slot s;
  s.kind = mskb::Slot::f32;
  s.f = v;
  return s;
}
mskb::Slot H(uint16_t v) {
  mskb::Slot s;
  s.kind = mskb::Slot::bf16;
  s.bits = v;
  return s;
}

template <class Fn>
void* fnptr(Fn f) { return reinterpret_cast<void*>(f); }

int a_, b_, c_, d_, e_;

TEST(Invoke, PointersAndInt) {
  seen = {};
  mskb::invoke(fnptr(&sig_ppi), {P(&a_), P(&b_), I(-7)});
  EXPECT_EQ(seen.p[0], &a_);
  EXPECT_EQ(seen.p[1], &b_);
  EXPECT_EQ(seen.i[0], -7);
}

TEST(Invoke, StackPassedIntegers) {
  seen = {};
  mskb::invoke(fnptr(&sig_pppiiiii), {P(&a_), P(&b_), P(&c_), I(1), I(2), I(3), I(-4), I(2147483647)});
  EXPECT_EQ(seen.p[2], &c_);
  EXPECT_EQ(seen.i[0], 1);
  EXPECT_EQ(seen.i[2], 3);
  EXPECT_EQ(seen.i[3], -4);
  EXPECT_EQ(seen.i[4], 2147483647);
  seen = {};
  mskb::invoke(fnptr(&sig_pppppiiii), {P(&a_), P(&b_), P(&c_), P(&d_), P(&e_), I(2), I(16), I(256), I(128)});
  EXPECT_EQ(seen.p[3], &e_);
  EXPECT_EQ(seen.i[0], 2);
  EXPECT_EQ(seen.i[3], 128);
}

TEST(Invoke, FloatsInterleaved) {
  seen = {};
  mskb::invoke(fnptr(&sig_ppiff), {P(&a_), P(&b_), I(1 << 18), F(1.67f), F(1.0f)});
  EXPECT_EQ(seen.i[0], 1 << 18);
  EXPECT_FLOAT_EQ(seen.f[0], 1.67f);
  EXPECT_FLOAT_EQ(seen.f[1], 1.0f);
  seen = {};
  mskb::invoke(fnptr(&sig_ppffi), {P(&a_), P(&b_), F(-3.5f), F(999.25f), I(12345)});
  EXPECT_FLOAT_EQ(seen.f[0], -3.5f);
  EXPECT_FLOAT_EQ(seen.f[1], 999.25f);
  EXPECT_EQ(seen.i[0], 12345);
}

TEST(Invoke, Bf16ScalarByValue) {
  seen = {};
  mskb::invoke(fnptr(&sig_ppbii), {P(&a_), P(&b_), H(0x3fc0), I(3), I(5)});
  EXPECT_EQ(seen.h, 0x3fc0);
  EXPECT_EQ(seen.i[0], 3);
  EXPECT_EQ(seen.i[1], 5);
}

TEST(Invoke, TooManyFloatsIsAnError) {
  std::vector<mskb::Slot> s(9, F(1.0f));
  EXPECT_THROW(mskb::invoke(fnptr(&sig_ppi), s), std::invalid_argument);
}

}  // namespace
