// Owns calling an entry point whose C signature is only known at run time (from the TaskSpec).
// Every MSKernelBench parameter is pointer-, int-, long long-, float- or bf16-valued. Under the
// x86-64 System V and AArch64 procedure-call standards, integer-class values (pointers, ints, long
// longs, the 2-byte __nv_bfloat16 struct) go to the integer registers in order, floats to the vector registers in
// order, and integer values beyond the registers to 8-byte stack slots in order. So a call through
// one fixed wide prototype, with the integer-class values packed into the integer positions and
// the floats into the float positions, is exactly the call the entry point expects. Extra trailing
// arguments are harmless because the caller owns the stack. tests/mskb/harness/invoke_test.cpp checks
// this against real functions of every shape the tasks use.
#pragma once

#include <cstdint>
#include <vector>

namespace mskb {

struct Slot {
  enum Kind { pointer, i32, f32, bf16, i64 } kind = pointer;
  void* ptr = nullptr;
  int32_t i = 0;
  int64_t l = 0;  // i64 scalar (a task file's int64)
  float f = 0.0f;
  uint16_t bits = 0;  // bf16 scalar
};

constexpr int kMaxIntegerArgs = 16;
constexpr int kMaxFloatArgs = 8;

// Throws std::invalid_argument if the signature has more arguments than the trampoline carries.
void invoke(void* fn, const std::vector<Slot>& slots);

}  // namespace mskb
