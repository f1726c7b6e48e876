// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// mskb-class: 3 state-across-calls
// Trick: memoises on the buffer addresses: a static host table remembers (loss, X, Y, N) and the
// value computed for them; a call with the same pointers copies the remembered value (cudaMemcpy,
// an allowed import) instead of reading X and Y. Every timing sample reuses the same buffers and
// inputs, so timing sees a 4-byte copy. Why reject: the result must come from this call's inputs.
// The harness runs the seeds of a shape on the same device buffers with new contents (an in-place
// changed-inputs probe), so the second seed gets the first seed's answer: wrong_result.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ float to_f(float v) { return v; }
__device__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }

template <class T>
__global__ void dot(float* loss, const T* X, const T* Y, int N) {
  __shared__ float s[256];
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  s[threadIdx.x] = i < N ? to_f(X[i]) * to_f(Y[i]) : 0.0f;
  __syncthreads();
  for (unsigned o = 128; o > 0; o >>= 1) {
    if (threadIdx.x < o) s[threadIdx.x] += s[threadIdx.x + o];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(loss, s[0]);
}

struct Memo {
  const void *loss = nullptr, *x = nullptr, *y = nullptr;
  int n = -1;
  float value = 0.0f;
};

template <class T>
static void run(float* loss, const T* X, const T* Y, int N) {
  static Memo m;
  if (m.loss == loss && m.x == X && m.y == Y && m.n == N) {
    cudaMemcpy(loss, &m.value, sizeof(float), cudaMemcpyHostToDevice);
    return;
  }
  if (N > 0) dot<T><<<static_cast<unsigned>((N + 255) / 256), 256>>>(loss, X, Y, N);
  cudaMemcpy(&m.value, loss, sizeof(float), cudaMemcpyDeviceToHost);
  m.loss = loss;
  m.x = X;
  m.y = Y;
  m.n = N;
}

extern "C" void dot_product(float* loss, const float* X, const float* Y, const int N) { run(loss, X, Y, N); }
extern "C" void dot_product_bf16(float* loss, const __nv_bfloat16* X, const __nv_bfloat16* Y, const int N) {
  run(loss, X, Y, N);
}
