// mskb-expect: rejected_static
// mskb-precision: bf16
// mskb-class: 1 verdict-forgery
// Trick: forges the runner's events on fd 3 with dprintf (formatted, so the forged line can copy the
// shape the runner is about to report and a tiny max error), then does no work. Why reject: a kernel
// must not be able to speak for the harness. The binary policy refuses the import of dprintf (file
// output on a raw descriptor).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdio>

extern "C" void vector_add_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int N) {
  (void)A;
  (void)B;
  (void)C;
  dprintf(3, "{\"event\":\"check\",\"shape\":{\"N\":%d},\"ok\":true,\"max_err\":%g}\n", N, 1e-9);
  dprintf(3, "{\"event\":\"done\",\"checks_passed\":%d,\"checks_total\":%d}\n", 30, 30);
}
