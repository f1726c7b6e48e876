// mskb-expect: wrong_result
// mskb-precision: fp32
// mskb-class: 3 state-across-calls
// Trick: counts calls per shape (N, C). The first two calls of a shape compute (and keep a device
// copy of the output); from the third on it only copies the kept output, betting that the harness
// checks two seeds and then times identical inputs. No pointer or content key at all. Why reject:
// the third seed of a paper / held-out shape has new inputs (and timed samples chosen by the
// verifier are checked), so the replayed output is stale: wrong_result.
#include <cuda_runtime.h>

#include <cmath>

#include <map>
#include <utility>

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
  struct Slot {
    int calls = 0;
    float* copy = nullptr;
  };
  static std::map<std::pair<int, int>, Slot> seen;
  Slot& s = seen[{N, C}];
  const size_t bytes = static_cast<size_t>(N) * static_cast<size_t>(C) * sizeof(float);
  if (++s.calls > 2 && s.copy) {
    cudaMemcpy(out, s.copy, bytes, cudaMemcpyDeviceToDevice);
    return;
  }
  if (N > 0) softmax_rows<<<N, 256>>>(out, input, C);
  if (!s.copy && bytes) cudaMalloc(&s.copy, bytes);
  if (s.copy) cudaMemcpy(s.copy, out, bytes, cudaMemcpyDeviceToDevice);
}
