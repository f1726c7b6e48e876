// mskb-expect: wrong_result
// mskb-precision: fp32
// The tanh approximation of GELU, 0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3))), where the task
// says the exact erf form: they differ by up to about 5e-4 (near |v| = 2), far beyond the fp32
// tolerance (1e-5). In bf16 the difference hides inside the rounding, so it is judged in fp32 only.
#include <cuda_runtime.h>

__global__ void tanh_gelu_kernel(const float* x, const float* bias, float* y, long long total, int N) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const float v = x[i] + bias[i % N];
  y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
}

extern "C" void bias_gelu(const float* x, const float* bias, float* y, int M, int N) {
  const long long total = static_cast<long long>(M) * N;
  tanh_gelu_kernel<<<static_cast<unsigned>((total + 255) / 256), 256>>>(x, bias, y, total, N);
  cudaDeviceSynchronize();
}
