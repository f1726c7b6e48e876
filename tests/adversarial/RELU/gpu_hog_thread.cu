// mskb-expect: rejected_static
// mskb-precision: fp32
// mskb-class: 8 shaped-timing
// Trick: when the library is loaded, a static constructor starts a std::thread that keeps a
// low-priority stream busy with a light spinning kernel: the GPU never idles, so its clocks stay at
// boost when the timed call arrives (and a baseline sharing the GPU would be slowed). The number
// measured is shaped by work outside the entry point. Why reject: kernels must not run threads or
// streams of their own. The binary policy refuses pthread_create and cudaStreamCreateWithPriority.
#include <cuda_runtime.h>

#include <thread>

__global__ void relu(float* out, const float* in, int N) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < N) out[i] = fmaxf(in[i], 0.0f);
}

__global__ void spin(unsigned long long cycles) {
  const unsigned long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

namespace {
struct Hog {
  Hog() {
    std::thread([] {
      int lo = 0, hi = 0;
      cudaDeviceGetStreamPriorityRange(&lo, &hi);
      cudaStream_t s;
      cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, lo);
      for (;;) {
        spin<<<1, 32, 0, s>>>(1000000ull);
        cudaStreamSynchronize(s);
      }
    }).detach();
  }
} hog;
}  // namespace

extern "C" void RELU(float* output, const float* input, int N) {
  if (N > 0) relu<<<static_cast<unsigned>((N + 255) / 256), 256>>>(output, input, N);
  cudaDeviceSynchronize();
}
