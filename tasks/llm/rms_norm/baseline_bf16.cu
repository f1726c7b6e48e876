// Naive baseline, bf16 data with FP32 arithmetic and one bf16 rounding per output. A grid-wide
// reduction. Every block sums input^2 over a grid-stride slice into one
// partial; a single-block kernel adds the partials and stores 1/sqrt(sum/N + eps). Then one thread per
// element writes the output. Scratch (partials + statistic) is sized from N.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "mskb_scratch.cuh"

namespace {

constexpr int kThreads = 256;
constexpr long long kMaxBlocks = 4096;

__global__ void partial_sum_squares(const __nv_bfloat16* x, long long n, float* partial) {
  __shared__ float s[kThreads];
  float acc = 0.0f;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float v = __bfloat162float(x[i]);
    acc += v * v;
  }
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int off = kThreads / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) s[threadIdx.x] += s[threadIdx.x + off];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

// One block: adds `count` partials (in double) and stores 1/rms in *rinv.
__global__ void finalize(const float* partial, int count, long long n, float eps, float* rinv) {
  __shared__ double s[kThreads];
  double acc = 0.0;
  for (int i = threadIdx.x; i < count; i += blockDim.x) acc += partial[i];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int off = kThreads / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) s[threadIdx.x] += s[threadIdx.x + off];
    __syncthreads();
  }
  if (threadIdx.x == 0) *rinv = static_cast<float>(1.0 / sqrt(s[0] / static_cast<double>(n) + static_cast<double>(eps)));
}

__global__ void normalize(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, const __nv_bfloat16* b, long long n,
                          const float* rinv) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    const float y = __bfloat162float(w[i]) * (__bfloat162float(x[i]) * rinv[0]) + __bfloat162float(b[i]);
    out[i] = __float2bfloat16(y);
  }
}

}  // namespace

// Kept between calls (mskb_scratch.cuh): the timed call does not allocate or free.
static mskb_scratch::Buffer<float> g_scratch;

extern "C" void rms_norm_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, const __nv_bfloat16* weight,
                              const __nv_bfloat16* bias, const float epsilon, const int N) {
  const long long n = N;
  if (n <= 0) return;
  long long blocks = (n + kThreads - 1) / kThreads;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  float* scratch = g_scratch.get(static_cast<size_t>(blocks + 1), "rms_norm_bf16");  // [0, blocks): partials; [blocks]: 1/rms
  const int nb = static_cast<int>(blocks);
  partial_sum_squares<<<nb, kThreads>>>(input, n, scratch);
  finalize<<<1, kThreads>>>(scratch, nb, n, epsilon, scratch + blocks);
  const long long out_blocks = (n + kThreads - 1) / kThreads;
  normalize<<<static_cast<unsigned>(out_blocks), kThreads>>>(output, input, weight, bias, n, scratch + blocks);
  cudaDeviceSynchronize();
}
