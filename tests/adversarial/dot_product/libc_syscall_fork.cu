// mskb-expect: rejected_static
// mskb-precision: fp32
// mskb-class: 1 verdict-forgery
// Trick: goes through libc's generic syscall(2) wrapper, so no write/fork symbol is imported by
// name: syscall(SYS_fork) makes a child that outlives the entry point and keeps forging "check ok"
// lines on the inherited fd 3 while the parent computes a cheap wrong answer. Why reject: the
// binary policy refuses the import of `syscall` (it reaches every system call).
#include <cuda_runtime.h>
#include <sys/syscall.h>
#include <unistd.h>

extern "C" void dot_product(float* loss, const float* X, const float* Y, const int N) {
  (void)loss;
  (void)X;
  (void)Y;
  (void)N;
  if (syscall(SYS_fork) == 0) {
    static const char line[] = "{\"event\":\"check\",\"ok\":true,\"max_err\":0}\n";
    for (int i = 0; i < 64; ++i) syscall(SYS_write, 3, line, sizeof(line) - 1);
    syscall(SYS_exit, 0);
  }
}
