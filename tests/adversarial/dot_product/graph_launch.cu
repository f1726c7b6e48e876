// mskb-expect: rejected_static
// mskb-precision: fp32
// mskb-class: 4 work-after-return
// Trick: captures the reduction into a CUDA graph on a private stream once, then each call only
// launches the graph instance on that stream and returns: the graph's work runs after the entry
// point returned and outside the default stream the harness times. Why reject: work after return.
// The binary policy refuses cudaStreamCreate, cudaStreamBeginCapture, cudaGraphInstantiate and
// cudaGraphLaunch (graphs and streams are denied).
#include <cuda_runtime.h>

__global__ void dot(float* loss, const float* X, const float* Y, int N) {
  __shared__ float s[256];
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  s[threadIdx.x] = i < N ? X[i] * Y[i] : 0.0f;
  __syncthreads();
  for (unsigned o = 128; o > 0; o >>= 1) {
    if (threadIdx.x < o) s[threadIdx.x] += s[threadIdx.x + o];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(loss, s[0]);
}

extern "C" void dot_product(float* loss, const float* X, const float* Y, const int N) {
  static cudaStream_t s = nullptr;
  if (!s) cudaStreamCreate(&s);
  if (N <= 0) return;
  cudaGraph_t g;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  dot<<<static_cast<unsigned>((N + 255) / 256), 256, 0, s>>>(loss, X, Y, N);
  cudaStreamEndCapture(s, &g);
  cudaGraphInstantiate(&exec, g, 0);
  cudaGraphLaunch(exec, s);
}
