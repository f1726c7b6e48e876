// Naive baseline: three kernels over an FP32 score matrix S (q x kv) allocated per call.
// (1) one thread per score: S[i][j] = dot(Q[i], K[j]) / sqrt(dim_qk), summed over k in order;
// (2) one thread per row: subtract the row max, exponentiate, normalise (softmax in place);
// (3) one thread per output: Y[i][d] = sum_j S[i][j] * V[j][d].
#include <cuda_runtime.h>

#include <math.h>

#include "mskb_scratch.cuh"

__global__ void scores_kernel(const float* Q, const float* K, float* S, int q, int kv, int dqk, float scale) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= static_cast<long long>(q) * kv) return;
  const long long i = idx / kv, j = idx % kv;
  const float* qi = Q + i * dqk;
  const float* kj = K + j * dqk;
  float acc = 0.0f;
  for (int k = 0; k < dqk; ++k) acc += qi[k] * kj[k];
  S[idx] = acc * scale;
}

__global__ void softmax_rows_kernel(float* S, int q, int kv) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= q) return;
  float* s = S + static_cast<long long>(i) * kv;
  float m = -INFINITY;
  for (int j = 0; j < kv; ++j) m = fmaxf(m, s[j]);
  float sum = 0.0f;
  for (int j = 0; j < kv; ++j) {
    const float e = expf(s[j] - m);
    s[j] = e;
    sum += e;
  }
  const float inv = 1.0f / sum;
  for (int j = 0; j < kv; ++j) s[j] *= inv;
}

__global__ void output_kernel(const float* P, const float* V, float* Y, int q, int kv, int dv) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= static_cast<long long>(q) * dv) return;
  const long long i = idx / dv, d = idx % dv;
  const float* p = P + i * kv;
  float acc = 0.0f;
  for (int j = 0; j < kv; ++j) acc += p[j] * V[static_cast<long long>(j) * dv + d];
  Y[idx] = acc;
}

// Kept between calls (mskb_scratch.cuh): the timed call does not allocate or free.
static mskb_scratch::Buffer<float> g_scratch;

extern "C" void softmax_attention(float* Y, const float* Q, const float* K, const float* V, int q_seq_len, int kv_seq_len,
                                  int dim_qk, int dim_v) {
  const long long ns = static_cast<long long>(q_seq_len) * kv_seq_len, ny = static_cast<long long>(q_seq_len) * dim_v;
  if (ns <= 0 || ny <= 0) return;
  float* S = g_scratch.get(static_cast<size_t>(ns), "softmax_attention");
  const int threads = 256;
  scores_kernel<<<static_cast<unsigned>((ns + threads - 1) / threads), threads>>>(Q, K, S, q_seq_len, kv_seq_len, dim_qk,
                                                                                  1.0f / sqrtf(static_cast<float>(dim_qk)));
  softmax_rows_kernel<<<(q_seq_len + 127) / 128, 128>>>(S, q_seq_len, kv_seq_len);
  output_kernel<<<static_cast<unsigned>((ny + threads - 1) / threads), threads>>>(S, V, Y, q_seq_len, kv_seq_len, dim_v);
  cudaDeviceSynchronize();
}
