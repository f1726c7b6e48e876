// Naive baseline, bf16 data with FP32 arithmetic and one bf16 rounding per output. A grid-wide
// two-pass reduction. Pass 1: every block sums a grid-stride slice of the
// input into one partial; a single-block kernel adds the partials and stores the mean. Pass 2 does the
// same for sum((x - mean)^2) and stores 1/sqrt(var + eps). Then one thread per element writes the
// output. Scratch (partials + statistics) is sized from N.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "mskb_scratch.cuh"

namespace {

constexpr int kThreads = 256;
constexpr long long kMaxBlocks = 4096;

// mode 0: partial sums of x; mode 1: partial sums of (x - stats[0])^2.
__global__ void partial_sums(const __nv_bfloat16* x, long long n, const float* stats, int mode, float* partial) {
  __shared__ float s[kThreads];
  const float mean = mode ? stats[0] : 0.0f;
  float acc = 0.0f;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float v = __bfloat162float(x[i]);
    if (mode) {
      const float d = v - mean;
      acc += d * d;
    } else {
      acc += v;
    }
  }
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int off = kThreads / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) s[threadIdx.x] += s[threadIdx.x + off];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

// One block: adds `count` partials (in double) and stores mean (mode 0) or rstd (mode 1) in stats.
__global__ void finalize(const float* partial, int count, long long n, float eps, int mode, float* stats) {
  __shared__ double s[kThreads];
  double acc = 0.0;
  for (int i = threadIdx.x; i < count; i += blockDim.x) acc += partial[i];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int off = kThreads / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) s[threadIdx.x] += s[threadIdx.x + off];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const double m = s[0] / static_cast<double>(n);
    if (mode == 0) stats[0] = static_cast<float>(m);
    else stats[1] = static_cast<float>(1.0 / sqrt(m + static_cast<double>(eps)));
  }
}

__global__ void normalize(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, const __nv_bfloat16* b, long long n,
                          const float* stats) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    const float y = __bfloat162float(w[i]) * ((__bfloat162float(x[i]) - stats[0]) * stats[1]) + __bfloat162float(b[i]);
    out[i] = __float2bfloat16(y);
  }
}

}  // namespace

// Kept between calls (mskb_scratch.cuh): the timed call does not allocate or free.
static mskb_scratch::Buffer<float> g_scratch;

extern "C" void layer_norm_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, const __nv_bfloat16* weight,
                                const __nv_bfloat16* bias, const float epsilon, const int N) {
  const long long n = N;
  if (n <= 0) return;
  long long blocks = (n + kThreads - 1) / kThreads;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  float* scratch = g_scratch.get(static_cast<size_t>(blocks + 2), "layer_norm_bf16");  // [0, blocks): partials; [blocks, blocks + 2): mean, rstd
  float* partial = scratch;
  float* stats = scratch + blocks;
  const int nb = static_cast<int>(blocks);
  partial_sums<<<nb, kThreads>>>(input, n, stats, 0, partial);
  finalize<<<1, kThreads>>>(partial, nb, n, epsilon, 0, stats);
  partial_sums<<<nb, kThreads>>>(input, n, stats, 1, partial);
  finalize<<<1, kThreads>>>(partial, nb, n, epsilon, 1, stats);
  const long long out_blocks = (n + kThreads - 1) / kThreads;
  normalize<<<static_cast<unsigned>(out_blocks), kThreads>>>(output, input, weight, bias, n, stats);
  cudaDeviceSynchronize();
}
