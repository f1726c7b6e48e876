// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// mskb-class: 5 check-vs-run
// mskb-gate: timing
// Trick: computes the full dot product on the first three calls of a shape (the correctness seeds
// `mskb check` makes) and from the fourth call on (warm-up and timing in `mskb run`) sums only every
// fourth product times 4: a quarter of the memory traffic, statistically close, exactly wrong.
// It passes `mskb check` (three seeds per shape, all honest); every timed call of `mskb run` is
// wrong. Why reject: every call the harness makes is judged; the verifier checks the outputs of
// randomly chosen timed samples (and the last): wrong_result in `mskb run` (gate: timing, since a
// check-only run makes no more than the seeds' calls per shape).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <map>

__device__ float to_f(float v) { return v; }
__device__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }

template <class T>
__global__ void dot(float* loss, const T* X, const T* Y, int N, int step) {
  __shared__ float s[256];
  const long long i = (blockIdx.x * 256ll + threadIdx.x) * step;
  s[threadIdx.x] = i < N ? to_f(X[i]) * to_f(Y[i]) * static_cast<float>(step) : 0.0f;
  __syncthreads();
  for (unsigned o = 128; o > 0; o >>= 1) {
    if (threadIdx.x < o) s[threadIdx.x] += s[threadIdx.x + o];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(loss, s[0]);
}

template <class T>
static void run(float* loss, const T* X, const T* Y, int N) {
  static std::map<int, int> calls;
  const int step = ++calls[N] > 3 ? 4 : 1;
  const long long items = (static_cast<long long>(N) + step - 1) / step;
  if (items > 0) dot<T><<<static_cast<unsigned>((items + 255) / 256), 256>>>(loss, X, Y, N, step);
  cudaDeviceSynchronize();
}

extern "C" void dot_product(float* loss, const float* X, const float* Y, const int N) { run(loss, X, Y, N); }
extern "C" void dot_product_bf16(float* loss, const __nv_bfloat16* X, const __nv_bfloat16* Y, const int N) {
  run(loss, X, Y, N);
}
