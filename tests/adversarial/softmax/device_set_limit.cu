// mskb-expect: rejected_static
// mskb-precision: fp32
// mskb-class: 2 runtime-policy
// Trick: raises device limits for itself (cudaDeviceSetLimit: a 1 GiB device malloc heap and the
// largest persisting-L2 set-aside), which outlive the call and change the conditions of every later
// measurement in the context (the harness's L2 flush, other contenders). Why reject: limits are
// process-wide state owned by the harness. The binary policy refuses cudaDeviceSetLimit.
#include <cuda_runtime.h>

#include <cmath>

__global__ void softmax_rows(float* out, const float* in, int C) {
  __shared__ float red[256];
  const float* x = in + static_cast<long long>(blockIdx.x) * C;
  float* y = out + static_cast<long long>(blockIdx.x) * C;
  float m = -INFINITY;
  for (int j = threadIdx.x; j < C; j += 256) m = fmaxf(m, x[j]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (unsigned o = 128; o > 0; o >>= 1) {
    if (threadIdx.x < o) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + o]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float s = 0.0f;
  for (int j = threadIdx.x; j < C; j += 256) s += expf(x[j] - m);
  red[threadIdx.x] = s;
  __syncthreads();
  for (unsigned o = 128; o > 0; o >>= 1) {
    if (threadIdx.x < o) red[threadIdx.x] += red[threadIdx.x + o];
    __syncthreads();
  }
  s = red[0];
  for (int j = threadIdx.x; j < C; j += 256) y[j] = expf(x[j] - m) / s;
}

extern "C" void softmax(float* out, const float* input, int N, int C) {
  static const bool once = [] {
    cudaDeviceSetLimit(cudaLimitMallocHeapSize, size_t{1} << 30);
    int l2 = 0;
    cudaDeviceGetAttribute(&l2, cudaDevAttrMaxPersistingL2CacheSize, 0);
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, static_cast<size_t>(l2));
    return true;
  }();
  (void)once;
  if (N > 0) softmax_rows<<<N, 256>>>(out, input, C);
  cudaDeviceSynchronize();
}
