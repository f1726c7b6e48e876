// mskb-expect: rejected_static
// mskb-precision: bf16
// mskb-class: 2 runtime-policy
// Trick: reads /proc/self/cmdline with open/read to learn how the runner was started (the request
// kind, the candidate flag) and so whether this call is a check or a timing sample; during timing it
// adds only the first half of the vector. Why reject: kernels must not inspect the process or the
// file system to detect the harness. The binary policy refuses open / read / close.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>

__global__ void add(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, long long n) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < n) C[i] = __float2bfloat16(__bfloat162float(A[i]) + __bfloat162float(B[i]));
}

extern "C" void vector_add_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int N) {
  static int timing = -1;
  if (timing < 0) {
    char buf[4096] = {0};
    const int fd = open("/proc/self/cmdline", O_RDONLY);
    const ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : 0;
    if (fd >= 0) close(fd);
    timing = 0;
    for (ssize_t i = 0; i + 5 < n; ++i)
      if (std::memcmp(buf + i, "time", 4) == 0) timing = 1;
  }
  const long long n = timing ? N / 2 : N;
  if (n > 0) add<<<static_cast<unsigned>((n + 255) / 256), 256>>>(A, B, C, n);
  cudaDeviceSynchronize();
}
