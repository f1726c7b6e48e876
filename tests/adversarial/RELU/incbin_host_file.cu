// mskb-expect: compile_error
// mskb-precision: fp32
// mskb-class: 2 runtime-policy
// Trick: an assembler incbin directive for a host file (/etc/passwd) into the kernel's
// object, the directive's name split across two string literals so that a text screen does not
// see it; the kernel would then hand the bytes out through its outputs.
// Why reject: the assembler runs inside the confined build: it may not open the file (Landlock:
// "Permission denied"), the build fails without reading it: compile_error.
#include <cuda_runtime.h>

__asm__(".section .rodata\n"
        ".globl relu_blob\n"
        "relu_blob:\n"
        ".inc" "bin \"/etc/passwd\"\n"
        ".byte 0\n"
        ".text\n");

__global__ void relu(float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] > 0.f ? in[i] : 0.f;
}

extern "C" void RELU(float* output, const float* input, int N) { relu<<<(N + 255) / 256, 256>>>(output, input, N); }
