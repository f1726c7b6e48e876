// Naive baseline: one thread per element of V_out [tok, head, hs]; each recomputes its (head, token)
// weights from the two LSEs with the max subtracted; the hs == 0 thread also writes LSE_out[head][tok].
#include <cuda_runtime.h>

__global__ void merge_kernel(float* v_out, float* lse_out, const float* v_a, const float* lse_a, const float* v_b,
                             const float* lse_b, long long total, int tokens, int heads, int hs) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const long long th = i / hs;  // t * heads + h
  const int d = static_cast<int>(i - th * hs);
  const long long t = th / heads;
  const int h = static_cast<int>(th - t * heads);
  const long long l = static_cast<long long>(h) * tokens + t;
  const float a = lse_a[l], b = lse_b[l];
  const float m = fmaxf(a, b);
  const float wa = expf(a - m), wb = expf(b - m);
  const float sum = wa + wb;
  v_out[i] = (v_a[i] * wa + v_b[i] * wb) / sum;
  if (d == 0) lse_out[l] = m + logf(sum);
}

extern "C" void merge_attn_states(float* V_out, float* LSE_out, const float* V_a, const float* lse_a, const float* V_b,
                                  const float* lse_b, int num_tokens, int num_heads, int head_size) {
  const long long total = static_cast<long long>(num_tokens) * num_heads * head_size;
  if (total <= 0) return;
  const int threads = 256;
  merge_kernel<<<static_cast<unsigned>((total + threads - 1) / threads), threads>>>(V_out, LSE_out, V_a, lse_a, V_b, lse_b, total,
                                                                                   num_tokens, num_heads, head_size);
  cudaDeviceSynchronize();
}
