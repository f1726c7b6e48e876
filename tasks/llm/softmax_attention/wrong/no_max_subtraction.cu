// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: the row softmax skips the max subtraction, P = exp(s) / sum exp(s). Mathematically the same
// and fine while every score stays below ~88; the generator gives some rows scores of ~100 and more, where
// expf overflows to inf, the row sum is inf and the row's weights become inf/inf = NaN (or 0).
// Everything else is the naive baseline.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <math.h>

namespace {

__device__ float to_f(float v) { return v; }
__device__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ void store(float* p, float v) { *p = v; }
__device__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

template <class T>
__global__ void scores_kernel(const T* Q, const T* K, float* S, int q, int kv, int dqk, float scale) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= static_cast<long long>(q) * kv) return;
  const long long i = idx / kv, j = idx % kv;
  float acc = 0.0f;
  for (int k = 0; k < dqk; ++k) acc += to_f(Q[i * dqk + k]) * to_f(K[j * dqk + k]);
  S[idx] = acc * scale;
}

__global__ void softmax_rows_no_max(float* S, int q, int kv) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= q) return;
  float* s = S + static_cast<long long>(i) * kv;
  float sum = 0.0f;
  for (int j = 0; j < kv; ++j) {
    const float e = expf(s[j]);
    s[j] = e;
    sum += e;
  }
  for (int j = 0; j < kv; ++j) s[j] /= sum;
}

template <class T>
__global__ void output_kernel(const float* P, const T* V, T* Y, int q, int kv, int dv) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= static_cast<long long>(q) * dv) return;
  const long long i = idx / dv, d = idx % dv;
  float acc = 0.0f;
  for (int j = 0; j < kv; ++j) acc += P[i * kv + j] * to_f(V[static_cast<long long>(j) * dv + d]);
  store(&Y[idx], acc);
}

template <class T>
void attention(T* Y, const T* Q, const T* K, const T* V, int q, int kv, int dqk, int dv) {
  const long long ns = static_cast<long long>(q) * kv, ny = static_cast<long long>(q) * dv;
  if (ns <= 0 || ny <= 0) return;
  float* S = nullptr;
  if (cudaMalloc(&S, sizeof(float) * static_cast<size_t>(ns)) != cudaSuccess) return;
  scores_kernel<T><<<static_cast<unsigned>((ns + 255) / 256), 256>>>(Q, K, S, q, kv, dqk, 1.0f / sqrtf(static_cast<float>(dqk)));
  softmax_rows_no_max<<<(q + 127) / 128, 128>>>(S, q, kv);
  output_kernel<T><<<static_cast<unsigned>((ny + 255) / 256), 256>>>(S, V, Y, q, kv, dv);
  cudaDeviceSynchronize();
  cudaFree(S);
}

}  // namespace

extern "C" void softmax_attention(float* Y, const float* Q, const float* K, const float* V, int q_seq_len, int kv_seq_len,
                                  int dim_qk, int dim_v) {
  attention(Y, Q, K, V, q_seq_len, kv_seq_len, dim_qk, dim_v);
}

extern "C" void softmax_attention_bf16(__nv_bfloat16* Y, const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                       int q_seq_len, int kv_seq_len, int dim_qk, int dim_v) {
  attention(Y, Q, K, V, q_seq_len, kv_seq_len, dim_qk, dim_v);
}
