// Naive baseline: one thread per element of V_out [tok, head, hs]; bf16 loads, FP32 weights recomputed
// from the two LSEs with the max subtracted, one bf16 rounding per output; the hs == 0 thread also writes
// LSE_out[head][tok].
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void merge_bf16_kernel(__nv_bfloat16* v_out, __nv_bfloat16* lse_out, const __nv_bfloat16* v_a,
                                  const __nv_bfloat16* lse_a, const __nv_bfloat16* v_b, const __nv_bfloat16* lse_b,
                                  long long total, int tokens, int heads, int hs) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const long long th = i / hs;  // t * heads + h
  const int d = static_cast<int>(i - th * hs);
  const long long t = th / heads;
  const int h = static_cast<int>(th - t * heads);
  const long long l = static_cast<long long>(h) * tokens + t;
  const float a = __bfloat162float(lse_a[l]), b = __bfloat162float(lse_b[l]);
  const float m = fmaxf(a, b);
  const float wa = expf(a - m), wb = expf(b - m);
  const float sum = wa + wb;
  v_out[i] = __float2bfloat16((__bfloat162float(v_a[i]) * wa + __bfloat162float(v_b[i]) * wb) / sum);
  if (d == 0) lse_out[l] = __float2bfloat16(m + logf(sum));
}

extern "C" void merge_attn_states_bf16(__nv_bfloat16* V_out, __nv_bfloat16* LSE_out, const __nv_bfloat16* V_a,
                                       const __nv_bfloat16* lse_a, const __nv_bfloat16* V_b, const __nv_bfloat16* lse_b,
                                       int num_tokens, int num_heads, int head_size) {
  const long long total = static_cast<long long>(num_tokens) * num_heads * head_size;
  if (total <= 0) return;
  const int threads = 256;
  merge_bf16_kernel<<<static_cast<unsigned>((total + threads - 1) / threads), threads>>>(V_out, LSE_out, V_a, lse_a, V_b, lse_b,
                                                                                        total, num_tokens, num_heads, head_size);
  cudaDeviceSynchronize();
}
