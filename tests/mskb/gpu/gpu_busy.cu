// Test helper: holds a CUDA context on the current GPU and keeps it busy with short spin kernels
// for the given number of seconds (default 30), like another job sharing the GPU. Prints "ready"
// once its context exists.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void spin(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 30.0;
  if (cudaFree(nullptr) != cudaSuccess) return 1;
  std::printf("ready\n");
  std::fflush(stdout);
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    spin<<<132, 128>>>(2000000);  // ~1 ms at 2 GHz
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  }
  return 0;
}
