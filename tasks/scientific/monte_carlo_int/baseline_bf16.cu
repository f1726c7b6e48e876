// Naive baseline: one thread per sample (bf16 widened to float), a shared-memory tree sum per block in
// FP32, one atomicAdd per block into an internal float temporary, then one thread adds
// (b - a) / N * sum to result and rounds to bf16 once.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

constexpr int kThreads = 256;

__global__ void monte_carlo_int_bf16_kernel(const __nv_bfloat16* y, float* sum, int N) {
  __shared__ float s[kThreads];
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < N ? __bfloat162float(y[i]) : 0.0f;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, s[0]);
}

__global__ void monte_carlo_int_bf16_finish(__nv_bfloat16* result, const float* sum, float scale) {
  result[0] = __float2bfloat16(__bfloat162float(result[0]) + scale * sum[0]);
}

// The internal float temporary: allocated once, freed at exit.
struct FloatTemp {
  float* p = nullptr;
  float* get() {
    if (!p) cudaMalloc(&p, sizeof(float));
    return p;
  }
  ~FloatTemp() {
    if (p) cudaFree(p);
  }
};

extern "C" void monte_carlo_int_bf16(const __nv_bfloat16* y_samples, __nv_bfloat16* result, float a, float b, int N) {
  if (N <= 0) return;
  static FloatTemp temp;
  float* sum = temp.get();
  cudaMemsetAsync(sum, 0, sizeof(float), 0);
  const long long blocks = (static_cast<long long>(N) + kThreads - 1) / kThreads;
  monte_carlo_int_bf16_kernel<<<static_cast<unsigned>(blocks), kThreads>>>(y_samples, sum, N);
  monte_carlo_int_bf16_finish<<<1, 1>>>(result, sum, (b - a) / static_cast<float>(N));
  cudaDeviceSynchronize();
}
