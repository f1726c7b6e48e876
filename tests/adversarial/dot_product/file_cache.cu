// mskb-expect: rejected_static
// mskb-precision: fp32
// mskb-class: 2 runtime-policy
// Trick: caches results in a file (/tmp/.dot_cache_<N>) across calls and across processes: each
// check runs in a fresh runner, but the file survives, so a later evaluation (the timing, another
// seed of the same shape) reads the stored answer instead of computing. Why reject: kernels must not
// touch the file system (state outside the call). The binary policy refuses fopen / fread / fwrite.
#include <cuda_runtime.h>

#include <cstdio>

__global__ void dot(float* loss, const float* X, const float* Y, int N) {
  __shared__ float s[256];
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  s[threadIdx.x] = i < N ? X[i] * Y[i] : 0.0f;
  __syncthreads();
  for (unsigned o = 128; o > 0; o >>= 1) {
    if (threadIdx.x < o) s[threadIdx.x] += s[threadIdx.x + o];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(loss, s[0]);
}

extern "C" void dot_product(float* loss, const float* X, const float* Y, const int N) {
  char path[64];
  std::snprintf(path, sizeof(path), "/tmp/.dot_cache_%d", N);
  float v = 0.0f;
  if (FILE* f = std::fopen(path, "rb")) {
    const bool hit = std::fread(&v, sizeof(v), 1, f) == 1;
    std::fclose(f);
    if (hit) {
      cudaMemcpy(loss, &v, sizeof(v), cudaMemcpyHostToDevice);
      return;
    }
  }
  if (N > 0) dot<<<static_cast<unsigned>((N + 255) / 256), 256>>>(loss, X, Y, N);
  cudaMemcpy(&v, loss, sizeof(v), cudaMemcpyDeviceToHost);
  if (FILE* f = std::fopen(path, "wb")) {
    std::fwrite(&v, sizeof(v), 1, f);
    std::fclose(f);
  }
}
