// mskb-expect: rejected_static
// mskb-precision: fp32
// mskb-class: 4 work-after-return
// Trick: starts a persistent pthread on the first call that keeps launching the normalisation pass
// of the previous call's rows while the harness times the next call, so the expensive part is never
// inside the timed window. Why reject: host threads are work after return. The binary policy refuses
// pthread_create.
#include <cuda_runtime.h>

#include <cmath>
#include <pthread.h>

struct Job {
  float* out = nullptr;
  int N = 0, C = 0;
  volatile int pending = 0;
};

__global__ void normalise(float* out, int C) {
  __shared__ float red[256];
  float* y = out + static_cast<long long>(blockIdx.x) * C;
  float s = 0.0f;
  for (int j = threadIdx.x; j < C; j += 256) s += y[j];
  red[threadIdx.x] = s;
  __syncthreads();
  for (unsigned o = 128; o > 0; o >>= 1) {
    if (threadIdx.x < o) red[threadIdx.x] += red[threadIdx.x + o];
    __syncthreads();
  }
  s = red[0];
  __syncthreads();
  for (int j = threadIdx.x; j < C; j += 256) y[j] /= s;
}

__global__ void exp_shifted(float* out, const float* in, int C) {
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
  for (int j = threadIdx.x; j < C; j += 256) y[j] = expf(x[j] - m);
}

static Job job;

static void* worker(void*) {
  for (;;) {
    if (job.pending) {
      normalise<<<job.N, 256>>>(job.out, job.C);
      cudaDeviceSynchronize();
      job.pending = 0;
    }
  }
  return nullptr;
}

extern "C" void softmax(float* out, const float* input, int N, int C) {
  static pthread_t t;
  static const int started = pthread_create(&t, nullptr, worker, nullptr);
  (void)started;
  if (N <= 0) return;
  exp_shifted<<<N, 256>>>(out, input, C);
  job.out = out;
  job.N = N;
  job.C = C;
  job.pending = 1;
}
