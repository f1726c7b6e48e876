// mskb-expect: unwritten_output
// mskb-precision: fp32 bf16
// Shortcut: one thread per mirrored PAIR (i, N-1-i) for i < N/2, which silently assumes N is even
// (true for every paper size). For odd N the middle element output[N/2] is never written.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

template <class T>
__global__ void swap_pairs_kernel(T* output, const T* input, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N / 2) {
    output[i] = input[N - 1 - i];
    output[N - 1 - i] = input[i];
  }
}

template <class T>
void launch(T* output, const T* input, int N) {
  const int threads = 256;
  long long blocks = (static_cast<long long>(N / 2) + threads - 1) / threads;
  if (blocks < 1) blocks = 1;
  swap_pairs_kernel<<<static_cast<unsigned>(blocks), threads>>>(output, input, N);
  cudaDeviceSynchronize();
}

extern "C" void reverse_array(float* output, float* input, int N) { launch(output, input, N); }
extern "C" void reverse_array_bf16(__nv_bfloat16* output, __nv_bfloat16* input, int N) { launch(output, input, N); }
