// mskb-expect: rejected_static
// mskb-precision: fp32
// mskb-class: 1 verdict-forgery
// Trick: forges a "check passed" event on fd 3 with a raw `syscall` instruction (inline asm,
// SYS_write = 1), so the library imports no write/dprintf at all and an import allowlist alone would
// let it through. Why reject: the binary policy also scans the host code for system-call
// instructions (syscall / sysenter / int 0x80) and refuses any.
#include <cuda_runtime.h>

static long raw_write(int fd, const void* buf, unsigned long len) {
  long ret;
  asm volatile("syscall" : "=a"(ret) : "a"(1L), "D"(static_cast<long>(fd)), "S"(buf), "d"(len) : "rcx", "r11", "memory");
  return ret;
}

extern "C" void softmax(float* out, const float* input, int N, int C) {
  (void)out;
  (void)input;
  (void)N;
  (void)C;
  static const char line[] = "{\"event\":\"check\",\"ok\":true,\"max_err\":0}\n";
  raw_write(3, line, sizeof(line) - 1);
}
