// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: subtracts lse_a instead of max(lse_a, lse_b), i.e. assumes the first partial state always has
// the larger LSE. Mathematically the merge is shift-invariant, so this is exact whenever lse_b - lse_a
// stays below ~88; when lse_b exceeds lse_a by more, exp(lse_b - lse_a) overflows to inf and the merged
// values become inf/inf = NaN (and LSE_out inf).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {

__device__ float to_f(float v) { return v; }
__device__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ void store(float* p, float v) { *p = v; }
__device__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

template <class T>
__global__ void merge_shift_a(T* v_out, T* lse_out, const T* v_a, const T* lse_a, const T* v_b, const T* lse_b, long long total,
                              int tokens, int heads, int hs) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const long long th = i / hs;
  const int d = static_cast<int>(i - th * hs);
  const long long t = th / heads;
  const int h = static_cast<int>(th - t * heads);
  const long long l = static_cast<long long>(h) * tokens + t;
  const float a = to_f(lse_a[l]), b = to_f(lse_b[l]);
  const float wb = expf(b - a);  // wa = exp(a - a) = 1
  const float sum = 1.0f + wb;
  store(&v_out[i], (to_f(v_a[i]) + to_f(v_b[i]) * wb) / sum);
  if (d == 0) store(&lse_out[l], a + logf(sum));
}

template <class T>
void launch(T* V_out, T* LSE_out, const T* V_a, const T* lse_a, const T* V_b, const T* lse_b, int tokens, int heads, int hs) {
  const long long total = static_cast<long long>(tokens) * heads * hs;
  if (total <= 0) return;
  merge_shift_a<T><<<static_cast<unsigned>((total + 255) / 256), 256>>>(V_out, LSE_out, V_a, lse_a, V_b, lse_b, total, tokens, heads, hs);
  cudaDeviceSynchronize();
}

}  // namespace

extern "C" void merge_attn_states(float* V_out, float* LSE_out, const float* V_a, const float* lse_a, const float* V_b,
                                  const float* lse_b, int num_tokens, int num_heads, int head_size) {
  launch(V_out, LSE_out, V_a, lse_a, V_b, lse_b, num_tokens, num_heads, head_size);
}

extern "C" void merge_attn_states_bf16(__nv_bfloat16* V_out, __nv_bfloat16* LSE_out, const __nv_bfloat16* V_a,
                                       const __nv_bfloat16* lse_a, const __nv_bfloat16* V_b, const __nv_bfloat16* lse_b,
                                       int num_tokens, int num_heads, int head_size) {
  launch(V_out, LSE_out, V_a, lse_a, V_b, lse_b, num_tokens, num_heads, head_size);
}
