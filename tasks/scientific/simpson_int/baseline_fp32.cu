// Naive baseline: one thread per sample computes w[i]*y[i] (w in units of h/12: the composite Simpson
// weights, with the even-N last-interval correction), a shared-memory tree sum per block, and one
// atomicAdd per block of h/12 * block_sum into result (zeroed by the harness).
#include <cuda_runtime.h>

constexpr int kThreads = 256;

// Weight of sample i in units of h/12 (N >= 3).
__device__ float simpson_weight12(long long i, long long n) {
  const long long last = (n % 2 == 1) ? n - 1 : n - 2;
  float w = 0.0f;
  if (i <= last) w = (i == 0 || i == last) ? 4.0f : ((i % 2 == 1) ? 16.0f : 8.0f);
  if (n % 2 == 0) {
    if (i == n - 3) w -= 1.0f;
    if (i == n - 2) w += 8.0f;
    if (i == n - 1) w += 5.0f;
  }
  return w;
}

__global__ void simpson_int_kernel(const float* y, float* result, float scale, int N) {
  __shared__ float s[kThreads];
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < N ? simpson_weight12(i, N) * y[i] : 0.0f;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(result, scale * s[0]);
}

extern "C" void simpson_int(const float* y_samples, float* result, float a, float b, int N) {
  if (N < 3) return;  // Simpson's rule needs at least three samples
  const float h = (b - a) / static_cast<float>(N - 1);
  const long long blocks = (static_cast<long long>(N) + kThreads - 1) / kThreads;
  simpson_int_kernel<<<static_cast<unsigned>(blocks), kThreads>>>(y_samples, result, h / 12.0f, N);
  cudaDeviceSynchronize();
}
