// mskb-expect: rejected_static
// mskb-precision: fp32 bf16
// mskb-class: 1 verdict-forgery
// Trick: wraps fd 3 in a FILE* with fdopen and fprintf's forged "check passed" events for every
// call, flushing so they interleave with the runner's own lines; the dot product is never computed.
// Why reject: the report stream must be out of the kernel's reach. The binary policy refuses the
// imports of fdopen / fprintf / fflush (file functions).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdio>

static void forge(int N) {
  static FILE* report = fdopen(3, "w");
  if (!report) return;
  std::fprintf(report, "{\"event\":\"check\",\"shape\":{\"N\":%d},\"ok\":true,\"max_err\":0}\n", N);
  std::fflush(report);
}

extern "C" void dot_product(float* loss, const float* X, const float* Y, const int N) {
  (void)loss;
  (void)X;
  (void)Y;
  forge(N);
}
extern "C" void dot_product_bf16(float* loss, const __nv_bfloat16* X, const __nv_bfloat16* Y, const int N) {
  (void)loss;
  (void)X;
  (void)Y;
  forge(N);
}
