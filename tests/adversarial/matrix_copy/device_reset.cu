// mskb-expect: rejected_static
// mskb-precision: fp32
// mskb-class: 2 runtime-policy
// Trick: launches an unchecked vectorised copy that may fault on odd widths, and calls
// cudaDeviceReset() when cudaGetLastError reports a problem, hoping to wipe the sticky error (and with
// it the harness's context, buffers and pending checks) instead of failing. Why reject: the kernel
// must not tear down the context the harness owns. The binary policy refuses cudaDeviceReset.
#include <cuda_runtime.h>

__global__ void copy4(const float* A, float* B, long long groups) {
  const long long g = blockIdx.x * 256ll + threadIdx.x;
  if (g < groups) reinterpret_cast<float4*>(B)[g] = reinterpret_cast<const float4*>(A)[g];
}
__global__ void copy1(const float* A, float* B, long long from, long long total) {
  const long long i = from + blockIdx.x * 256ll + threadIdx.x;
  if (i < total) B[i] = A[i];
}

extern "C" void matrix_copy(float* A, float* B, int M, int N) {
  const long long total = static_cast<long long>(M) * N, groups = total / 4;
  if (groups > 0) copy4<<<static_cast<unsigned>((groups + 255) / 256), 256>>>(A, B, groups);
  if (total > groups * 4) copy1<<<1, 256>>>(A, B, groups * 4, total);
  if (cudaDeviceSynchronize() != cudaSuccess) cudaDeviceReset();
}
