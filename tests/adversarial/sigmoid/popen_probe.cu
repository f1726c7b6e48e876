// mskb-expect: rejected_static
// mskb-precision: fp32
// mskb-class: 2 runtime-policy
// Trick: popen()s `nvidia-smi` to read the GPU's current clocks and utilisation and picks a cheaper
// approximation (skipping the exp) whenever it guesses it is being timed rather than checked.
// Why reject: kernels must not run programs or read the system's state. The binary policy refuses
// the imports of popen / pclose / fgets.
#include <cuda_runtime.h>

#include <cstdio>

__global__ void sig(float* out, const float* in, int N, int fast) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < N) out[i] = fast ? 0.5f + 0.25f * in[i] : 1.0f / (1.0f + expf(-in[i]));
}

extern "C" void sigmoid(float* out, const float* input, const int N) {
  int busy = 0;
  if (FILE* p = popen("nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits", "r")) {
    char line[64] = {0};
    if (std::fgets(line, sizeof(line), p)) std::sscanf(line, "%d", &busy);
    pclose(p);
  }
  if (N > 0) sig<<<static_cast<unsigned>((N + 255) / 256), 256>>>(out, input, N, busy > 90);
  cudaDeviceSynchronize();
}
