// mskb-expect: rejected_static
// mskb-precision: fp32
// mskb-class: 1 verdict-forgery
// Trick: writes a forged "done" to fd 3 and ends the whole process with exit_group(0), both by
// raw `syscall` instructions in inline asm: no write, _exit or exit import for an allowlist to see.
// Why reject: the parent must not accept a report cut short, and the binary policy refuses host code
// that contains a system-call instruction.
#include <cuda_runtime.h>

static long sys3(long nr, long a, long b, long c) {
  long ret;
  asm volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
  return ret;
}

extern "C" void vector_add(const float* A, const float* B, float* C, int N) {
  (void)A;
  (void)B;
  (void)C;
  (void)N;
  static const char done[] = "{\"event\":\"done\",\"disposition\":\"passed\"}\n";
  sys3(1 /* write */, 3, reinterpret_cast<long>(done), sizeof(done) - 1);
  sys3(231 /* exit_group */, 0, 0, 0);
}
