// Wrong: float4-vectorised with no remainder loop. Correct whenever N % 4 == 0 (every paper
// size), so only the held-out odd sizes expose it: the last N % 4 elements stay unwritten.
// mskb-expect: unwritten_output
// mskb-precision: fp32
#include <cuda_runtime.h>
__global__ void add4(const float* A, const float* B, float* C, long long groups) {
  const long long g = blockIdx.x * 256ll + threadIdx.x;
  if (g < groups) {
    const float4 a = reinterpret_cast<const float4*>(A)[g], b = reinterpret_cast<const float4*>(B)[g];
    reinterpret_cast<float4*>(C)[g] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
  }
}
extern "C" void vector_add(const float* A, const float* B, float* C, int N) {
  const long long groups = N / 4;
  if (groups > 0) add4<<<static_cast<unsigned>((groups + 255) / 256), 256>>>(A, B, C, groups);
  cudaDeviceSynchronize();
}
