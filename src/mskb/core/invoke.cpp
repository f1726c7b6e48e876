#include "mskb/core/invoke.hpp"

#include <stdexcept>

#if !(defined(__x86_64__) || defined(__aarch64__))
#error "mskb::invoke relies on the x86-64 System V or AArch64 calling convention"
#endif

namespace mskb {

namespace {
using I = uint64_t;
using F = float;
#if defined(__x86_64__)
constexpr int kIntRegs = 6;
using Wide = void (*)(I, I, I, I, I, I, F, F, F, F, F, F, F, F, I, I, I, I, I, I, I, I, I, I);
#else
constexpr int kIntRegs = 8;
using Wide = void (*)(I, I, I, I, I, I, I, I, F, F, F, F, F, F, F, F, I, I, I, I, I, I, I, I);
#endif
static_assert(kMaxIntegerArgs == 16, "Wide carries 16 integer-class arguments");
}  // namespace

void invoke(void* fn, const std::vector<Slot>& slots) {
  I ints[kMaxIntegerArgs] = {};
  F floats[kMaxFloatArgs] = {};
  int ni = 0, nf = 0;
  for (const Slot& s : slots) {
    if (s.kind == Slot::f32) {
      if (nf == kMaxFloatArgs) throw std::invalid_argument("entry point has more than 8 float arguments");
      floats[nf++] = s.f;
      continue;
    }
    if (ni == kMaxIntegerArgs) throw std::invalid_argument("entry point has more than 16 integer arguments");
    switch (s.kind) {
      case Slot::pointer: ints[ni++] = reinterpret_cast<I>(s.ptr); break;
      // Sign-extend ints as the caller would; the callee reads the low 32 bits either way.
      case Slot::i32: ints[ni++] = static_cast<I>(static_cast<int64_t>(s.i)); break;
      case Slot::i64: ints[ni++] = static_cast<I>(s.l); break;
      case Slot::bf16: ints[ni++] = s.bits; break;
      case Slot::f32: break;
    }
  }
  auto wide = reinterpret_cast<Wide>(fn);
#if defined(__x86_64__)
  wide(ints[0], ints[1], ints[2], ints[3], ints[4], ints[5], floats[0], floats[1], floats[2], floats[3],
       floats[4], floats[5], floats[6], floats[7], ints[6], ints[7], ints[8], ints[9], ints[10], ints[11],
       ints[12], ints[13], ints[14], ints[15]);
#else
  wide(ints[0], ints[1], ints[2], ints[3], ints[4], ints[5], ints[6], ints[7], floats[0], floats[1], floats[2],
       floats[3], floats[4], floats[5], floats[6], floats[7], ints[8], ints[9], ints[10], ints[11], ints[12],
       ints[13], ints[14], ints[15]);
#endif
  (void)kIntRegs;
}

}  // namespace mskb
