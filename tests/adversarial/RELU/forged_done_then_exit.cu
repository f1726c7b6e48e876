// mskb-expect: rejected_static
// mskb-precision: fp32
// mskb-class: 1 verdict-forgery
// Trick: on the first call writes a forged "done" event (0 checks made, all passed) to fd 3 and
// leaves with _exit(0), so the runner never gets to compare anything and the process ends cleanly
// (no atexit handlers, no crash). Why reject: a report that ends before the requested checks is not
// a pass; and the kernel must not end the evaluation. The binary policy refuses write and _exit
// (process control).
#include <cuda_runtime.h>
#include <unistd.h>

extern "C" void RELU(float* output, const float* input, int N) {
  (void)output;
  (void)input;
  (void)N;
  static const char done[] = "{\"event\":\"done\",\"checks_passed\":0,\"checks_total\":0,\"disposition\":\"passed\"}\n";
  const ssize_t n = write(3, done, sizeof(done) - 1);
  (void)n;
  _exit(0);
}
